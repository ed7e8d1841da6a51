//! Narratives are Markdown. Raw HTML in them is dropped, never rendered, and
//! links may only point at http(s) addresses or within the page, so an
//! exercise file cannot inject markup or script into the page.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};

/// Renders Markdown to HTML with every raw HTML event removed.
pub fn to_safe_html(markdown: &str) -> String {
    let parser = Parser::new_ext(
        markdown,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    )
    .filter(|event| !matches!(event, Event::Html(_) | Event::InlineHtml(_)))
    .map(|event| match event {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    html
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(scheme, _)| scheme);
    let allowed = match scheme {
        Some(scheme) if !scheme.contains('/') && !scheme.contains('#') => {
            scheme == "http" || scheme == "https"
        }
        _ => true,
    };
    if allowed { url } else { CowStr::from("#") }
}

#[cfg(test)]
mod tests {
    use super::to_safe_html;

    #[test]
    fn raw_html_and_script_links_are_dropped() {
        let html = to_safe_html(
            "Hello <script>alert(1)</script> **bold**\n\n<div onclick=x>block</div>\n\n[x](javascript:alert(1))",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<div"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
    }
}
