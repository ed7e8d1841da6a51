//! `imsmanifest.xml`, the one file an LMS reads to import a package, for
//! SCORM 1.2 (IMS Content Packaging 1.1.2, ADL's `adlcp_rootv1p2`) and SCORM
//! 2004 4th Edition (IMS CP 1.1.4, `adlcp_v1p3`).
//!
//! Kept minimal: one organization titled after the course, one item per
//! exercise (the title the LMS lists), each item's SCO resource (its launch
//! page) depending on one shared asset resource that lists every file of
//! the site. No sequencing rules, no metadata beyond the schema version:
//! every LMS falls back to the same defaults (launch any item, in order).
//!
//! Must never write a manifest that is not well-formed XML: every text it
//! holds (the course's title, each exercise's, each file's name) goes
//! through [`escape`], which refuses a character XML 1.0 cannot hold,
//! naming the text's field, rather than write it or change it unsaid.

/// The two SCORM versions a package can be made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Scorm12,
    Scorm2004,
}

impl Version {
    /// The version as authors and the bridge write it: `1.2` or `2004`.
    pub fn name(self) -> &'static str {
        match self {
            Version::Scorm12 => "1.2",
            Version::Scorm2004 => "2004",
        }
    }

    pub fn parse(text: &str) -> Result<Version, String> {
        match text {
            "1.2" => Ok(Version::Scorm12),
            "2004" => Ok(Version::Scorm2004),
            other => Err(format!(
                "`{other}` is not a SCORM version: give 1.2 or 2004"
            )),
        }
    }
}

/// One exercise as the LMS lists it.
pub struct Sco {
    /// The exercise's id (lowercase letters, digits and dashes).
    pub id: String,
    pub title: String,
    /// Its launch page inside the package.
    pub href: String,
    /// Its file, as errors name it.
    pub file: String,
}

/// The manifest of a package titled `course`, listing `scos` and `files`
/// (every other file of the package, the site's), or the sentence that
/// says which text XML cannot hold.
pub fn write(
    version: Version,
    course: &str,
    scos: &[Sco],
    files: &[String],
) -> Result<String, String> {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    // The content-packaging namespace, ADL's extension to it and the
    // version's name for itself: all that differs between the two heads.
    let (content, content_xsd, adlcp, adlcp_xsd, schema_version) = match version {
        Version::Scorm12 => (
            "http://www.imsproject.org/xsd/imscp_rootv1p1p2",
            "imscp_rootv1p1p2.xsd",
            "http://www.adlnet.org/xsd/adlcp_rootv1p2",
            "adlcp_rootv1p2.xsd",
            "1.2",
        ),
        Version::Scorm2004 => (
            "http://www.imsglobal.org/xsd/imscp_v1p1",
            "imscp_v1p1.xsd",
            "http://www.adlnet.org/xsd/adlcp_v1p3",
            "adlcp_v1p3.xsd",
            "2004 4th Edition",
        ),
    };
    xml.push_str(&format!(
        "<manifest identifier=\"{id}\" version=\"1\"\n  \
         xmlns=\"{content}\"\n  \
         xmlns:adlcp=\"{adlcp}\"\n  \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n  \
         xsi:schemaLocation=\"{content} {content_xsd} {adlcp} {adlcp_xsd}\">\n  \
         <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>{schema_version}</schemaversion>\n  </metadata>\n",
        id = identifier(course, version),
    ));
    // 1.2 spells the attribute `scormtype`, 2004 `scormType`.
    let scorm_type = match version {
        Version::Scorm12 => "adlcp:scormtype",
        Version::Scorm2004 => "adlcp:scormType",
    };
    xml.push_str(
        "  <organizations default=\"course\">\n    <organization identifier=\"course\">\n",
    );
    xml.push_str(&format!(
        "      <title>{}</title>\n",
        escape(course, "--title")?
    ));
    for sco in scos {
        xml.push_str(&format!(
            "      <item identifier=\"item-{id}\" identifierref=\"sco-{id}\">\n        \
             <title>{title}</title>\n      </item>\n",
            id = sco.id,
            title = escape(&sco.title, &sco.title_field())?,
        ));
    }
    xml.push_str("    </organization>\n  </organizations>\n  <resources>\n");
    for sco in scos {
        xml.push_str(&format!(
            "    <resource identifier=\"sco-{id}\" type=\"webcontent\" {scorm_type}=\"sco\" href=\"{href}\">\n      \
             <file href=\"{href}\"/>\n      <dependency identifierref=\"site\"/>\n    </resource>\n",
            id = sco.id,
            href = escape(&sco.href, &format!("{}: id", sco.file))?,
        ));
    }
    xml.push_str(&format!(
        "    <resource identifier=\"site\" type=\"webcontent\" {scorm_type}=\"asset\">\n"
    ));
    for file in files {
        xml.push_str(&format!(
            "      <file href=\"{}\"/>\n",
            escape(file, &format!("the site's file `{file}`"))?
        ));
    }
    xml.push_str("    </resource>\n  </resources>\n</manifest>\n");
    Ok(xml)
}

impl Sco {
    /// What an error about the exercise's title names: its file and field.
    pub fn title_field(&self) -> String {
        format!("{}: title", self.file)
    }
}

/// The manifest's identifier: the course's title as an XML ID (letters,
/// digits, `-`, `_`, `.`, starting with a letter), with the version, so a
/// 1.2 and a 2004 package of one course are two courses to an LMS.
fn identifier(course: &str, version: Version) -> String {
    let word: String = course
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let version = version.name().replace('.', "");
    format!("fencelab-{}-scorm{version}", word.trim_matches('-'))
}

/// `text` for an XML attribute or element (or HTML's), or the sentence
/// that names `field` and the character XML 1.0 cannot hold: a C0 control
/// other than tab and the line breaks, U+FFFE or U+FFFF (production 2,
/// `Char`; a surrogate cannot be in a Rust string). Such a character is
/// refused, not dropped: the package would otherwise say another text
/// than the one its author wrote, or not be XML at all. Tab and the line
/// breaks are written as character references, which no XML reader
/// normalizes away.
pub fn escape(text: &str, field: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push_str(&format!("&#{};", u32::from(c))),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => {
                return Err(format!(
                    "{}: holds U+{:04X}, which an XML document cannot hold; write the text without it",
                    fencelab_model::text::visible(field),
                    u32::from(c)
                ));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scos() -> Vec<Sco> {
        vec![Sco {
            id: "my-claim".into(),
            title: "Claims & <fences>".into(),
            href: "scorm/my-claim.html".into(),
            file: "site/exercises/my-claim.toml".into(),
        }]
    }

    #[test]
    fn each_version_has_its_namespaces_and_spelling() {
        let files = vec!["index.html".to_string()];
        let v12 = write(Version::Scorm12, "Week 3", &scos(), &files).unwrap();
        assert!(v12.contains("<schemaversion>1.2</schemaversion>"));
        assert!(v12.contains("xmlns=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2\""));
        assert!(v12.contains("adlcp:scormtype=\"sco\" href=\"scorm/my-claim.html\""));
        assert!(v12.contains("identifier=\"fencelab-Week-3-scorm12\""));
        let v2004 = write(Version::Scorm2004, "Week 3", &scos(), &files).unwrap();
        assert!(v2004.contains("<schemaversion>2004 4th Edition</schemaversion>"));
        assert!(v2004.contains("xmlns:adlcp=\"http://www.adlnet.org/xsd/adlcp_v1p3\""));
        assert!(v2004.contains("adlcp:scormType=\"asset\""));
        for xml in [v12, v2004] {
            assert!(xml.contains("<title>Claims &amp; &lt;fences&gt;</title>"));
            assert!(xml.contains("<file href=\"index.html\"/>"));
        }
    }

    #[test]
    fn a_character_xml_cannot_hold_is_refused_naming_its_field() {
        let files = vec!["index.html".to_string()];
        for (bad, code) in [
            ('\u{fffe}', "U+FFFE"),
            ('\u{ffff}', "U+FFFF"),
            ('\u{1}', "U+0001"),
        ] {
            let mut listed = scos();
            listed[0].title = format!("Claims{bad}");
            let error = write(Version::Scorm2004, "Week 3", &listed, &files).unwrap_err();
            assert!(
                error.starts_with("site/exercises/my-claim.toml: title: holds ")
                    && error.contains(code),
                "{error}"
            );
            let error =
                write(Version::Scorm12, &format!("Week{bad}"), &scos(), &files).unwrap_err();
            assert!(
                error.starts_with("--title: holds ") && error.contains(code),
                "{error}"
            );
            let error =
                write(Version::Scorm12, "Week", &scos(), &[format!("a{bad}.js")]).unwrap_err();
            assert!(error.starts_with("the site's file `a"), "{error}");
        }
        // What XML allows is kept, the breaks as references a reader keeps.
        let xml = write(
            Version::Scorm12,
            "Week\t3\r\n\u{85}\u{fffd}",
            &scos(),
            &files,
        )
        .unwrap();
        assert!(
            xml.contains("<title>Week&#9;3&#13;&#10;\u{85}\u{fffd}</title>"),
            "{xml}"
        );
    }

    #[test]
    fn a_version_is_one_of_two() {
        assert_eq!(Version::parse("2004"), Ok(Version::Scorm2004));
        assert!(
            Version::parse("1.3")
                .unwrap_err()
                .contains("give 1.2 or 2004")
        );
    }
}
