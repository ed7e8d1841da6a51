//! Narratives are Markdown. Raw HTML in them is dropped, never rendered, and
//! links may only point at http(s) addresses or within the page (a link to
//! anything else, such as `javascript:`, keeps its text and is no link), so
//! an exercise file, a shared one included, cannot inject markup or script
//! into the page.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// Renders Markdown to HTML with every raw HTML event removed.
pub fn to_safe_html(markdown: &str) -> String {
    // Links do not nest, so one flag pairs a refused link's end with it.
    let mut in_refused_link = false;
    let parser = Parser::new_ext(
        markdown,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    )
    .filter(|event| !matches!(event, Event::Html(_) | Event::InlineHtml(_)))
    .filter(move |event| match event {
        Event::Start(Tag::Link { dest_url, .. }) if !allowed(dest_url) => {
            in_refused_link = true;
            false
        }
        Event::End(TagEnd::Link) if in_refused_link => {
            in_refused_link = false;
            false
        }
        _ => true,
    })
    .map(|event| match event {
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

/// The narrative's first sentence as plain text (its first paragraph up to
/// the first full stop, question or exclamation mark followed by a space or
/// its end), for an embed's folded story: markup is dropped, code keeps its
/// text, so nothing in it can be markup either.
pub fn first_sentence(markdown: &str) -> String {
    let mut text = String::new();
    for event in Parser::new(markdown) {
        match event {
            Event::Text(t) | Event::Code(t) => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_)) if !text.trim().is_empty() => break,
            _ => {}
        }
    }
    let text = text.trim();
    let end = text
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '?' | '!')
                && text[i + c.len_utf8()..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
        .map_or(text.len(), |(i, c)| i + c.len_utf8());
    text[..end].to_string()
}

/// Whether an address may be followed from a narrative: http(s), or one
/// with no scheme (within the page or the site).
fn allowed(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    match lower.split_once(':').map(|(scheme, _)| scheme) {
        Some(scheme) if !scheme.contains('/') && !scheme.contains('#') => {
            scheme == "http" || scheme == "https"
        }
        _ => true,
    }
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    if allowed(&url) {
        url
    } else {
        CowStr::from("#")
    }
}

#[cfg(test)]
mod tests {
    use super::{first_sentence, to_safe_html};

    #[test]
    fn the_first_sentence_is_plain_text_up_to_its_stop() {
        assert_eq!(
            first_sentence("Two workers *both* read `NEW` twice.\nThen one wins.\n\nMore."),
            "Two workers both read NEW twice."
        );
        assert_eq!(first_sentence("# Title\n\nNo stop at all"), "Title");
        assert_eq!(first_sentence("<b>x</b> y. z"), "x y.");
        assert_eq!(first_sentence(""), "");
    }

    #[test]
    fn raw_html_and_script_links_are_dropped() {
        let html = to_safe_html(
            "Hello <script>alert(1)</script> **bold**\n\n<div onclick=x>block</div>\n\n[x](javascript:alert(1))",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<div"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(!html.contains("<a"), "a refused link is no link: {html}");
        assert!(html.contains(">x<"), "its text stays: {html}");
        let kept =
            to_safe_html("[a](https://example.org) [b](#scenarios) [c](JavaScript:x) [d](/x)");
        assert!(
            kept.contains(r##"<a href="https://example.org">a</a>"##),
            "{kept}"
        );
        assert!(kept.contains(r##"<a href="#scenarios">b</a>"##), "{kept}");
        assert!(kept.contains(" c "), "{kept}");
        assert!(kept.contains(r##"<a href="/x">d</a>"##), "{kept}");
    }
}
