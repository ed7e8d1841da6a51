//! An exercise's prose: its narrative, hints and working-version offer are
//! Markdown in the file, rendered to HTML once, by the loader, so the page
//! shows what the worker (or the build) hands it and parses no Markdown of
//! its own.
//!
//! Rendering is safe by construction: raw HTML is dropped, never rendered,
//! and a link may only point at an http(s) address or within the page (a
//! link to anything else, such as `javascript:`, keeps its text and is no
//! link; an image's address falls back to `#`), so an exercise file, a
//! shared one included, cannot put markup or script into the page.
//!
//! Rendering needs the `markdown` feature (the loader's, on with `toml`);
//! the page builds this crate without it and only reads what was rendered.

use serde::{Deserialize, Serialize};

/// HTML rendered from Markdown by [`SafeHtml::block`] or
/// [`SafeHtml::inline`]: no raw HTML, no script links. On the wire it is a
/// string, as the loader (in the worker, or at build time) wrote it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SafeHtml(String);

impl SafeHtml {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The exercise's story: its HTML, and its first sentence as plain text
/// for a folded story's label (an embed, a phone) and a page's description.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Narrative {
    pub html: SafeHtml,
    pub lead: String,
}

#[cfg(feature = "markdown")]
mod render {
    use super::{Narrative, SafeHtml};
    use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

    impl Narrative {
        /// Renders a narrative's Markdown.
        pub fn render(markdown: &str) -> Narrative {
            Narrative {
                html: SafeHtml::block(markdown),
                lead: first_sentence(markdown),
            }
        }
    }

    impl SafeHtml {
        /// Markdown as blocks: paragraphs, lists, code, tables.
        pub fn block(markdown: &str) -> SafeHtml {
            SafeHtml(to_safe_html(markdown))
        }

        /// One line of Markdown (a hint, an offer), without the paragraph
        /// a block would wrap it in, to sit inside a list item or a `<p>`.
        /// Markdown of several blocks (a hint that ends with a procedure's
        /// whole text as a code block) keeps its blocks: stripping the
        /// first `<p>` alone would leave its `</p>` unpaired.
        pub fn inline(markdown: &str) -> SafeHtml {
            let html = to_safe_html(markdown);
            let html = html.trim();
            let one_paragraph = html
                .strip_prefix("<p>")
                .and_then(|rest| rest.strip_suffix("</p>"))
                .filter(|inner| !inner.contains("</p>"));
            SafeHtml(one_paragraph.unwrap_or(html).to_string())
        }
    }

    fn to_safe_html(markdown: &str) -> String {
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

    /// The first paragraph up to the first full stop, question or
    /// exclamation mark followed by a space or its end: markup is dropped,
    /// code keeps its text, so nothing in it can be markup either.
    fn first_sentence(markdown: &str) -> String {
        let mut text = String::new();
        for event in Parser::new(markdown) {
            match event {
                Event::Text(t) | Event::Code(t) => text.push_str(&t),
                Event::SoftBreak | Event::HardBreak => text.push(' '),
                Event::End(TagEnd::Paragraph | TagEnd::Heading(_)) if !text.trim().is_empty() => {
                    break;
                }
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

    /// Whether an address may be followed from prose: http(s), or one with
    /// no scheme (within the page or the site).
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
}

#[cfg(all(test, feature = "markdown"))]
mod tests {
    use super::{Narrative, SafeHtml};

    #[test]
    fn the_lead_is_plain_text_up_to_the_first_stop() {
        let lead = |markdown| Narrative::render(markdown).lead;
        assert_eq!(
            lead("Two workers *both* read `NEW` twice.\nThen one wins.\n\nMore."),
            "Two workers both read NEW twice."
        );
        assert_eq!(lead("# Title\n\nNo stop at all"), "Title");
        assert_eq!(lead("<b>x</b> y. z"), "x y.");
        assert_eq!(lead(""), "");
    }

    #[test]
    fn raw_html_and_script_links_are_dropped() {
        let html = SafeHtml::block(
            "Hello <script>alert(1)</script> **bold**\n\n<div onclick=x>block</div>\n\n[x](javascript:alert(1))",
        );
        let html = html.as_str();
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<div"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(!html.contains("<a"), "a refused link is no link: {html}");
        assert!(html.contains(">x<"), "its text stays: {html}");
        let kept =
            SafeHtml::block("[a](https://example.org) [b](#scenarios) [c](JavaScript:x) [d](/x)");
        let kept = kept.as_str();
        assert!(
            kept.contains(r##"<a href="https://example.org">a</a>"##),
            "{kept}"
        );
        assert!(kept.contains(r##"<a href="#scenarios">b</a>"##), "{kept}");
        assert!(kept.contains(" c "), "{kept}");
        assert!(kept.contains(r##"<a href="/x">d</a>"##), "{kept}");
        let image = SafeHtml::block("![i](javascript:alert(1))");
        assert!(image.as_str().contains(r##"src="#""##), "{image:?}");
    }

    #[test]
    fn an_inline_line_has_no_paragraph_around_it() {
        assert_eq!(
            SafeHtml::inline("Use `BEGIN IMMEDIATE` <i>now</i>.").as_str(),
            "Use <code>BEGIN IMMEDIATE</code> now."
        );
        assert_eq!(SafeHtml::inline("").as_str(), "");
        let blocks = SafeHtml::inline("The whole `claim`:\n\n```sql claim\nCOMMIT;\n```\n");
        assert_eq!(
            blocks.as_str(),
            "<p>The whole <code>claim</code>:</p>\n\
             <pre><code class=\"language-sql\">COMMIT;\n</code></pre>"
        );
    }
}
