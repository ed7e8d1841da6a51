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

/// The most characters an `--identifier` may hold: an identifier is a
/// name, and a package per exercise adds the exercise's id to it.
pub const IDENTIFIER_CHARS_MAX: usize = 100;

/// The identifiers the manifest gives its own parts (the organization, the
/// shared resource, and each exercise's item and resource by prefix): an
/// XML document holds an ID once, so the manifest's own may be none of them.
const OWN_IDENTIFIERS: &[&str] = &["course", "site"];
const OWN_IDENTIFIER_PREFIXES: &[&str] = &["item-", "sco-"];

/// A manifest's `identifier`, which an LMS keys the package by. The ADL
/// schemas type it `xs:ID`, an XML name without a colon; fencelab takes
/// its ASCII part: a letter or `_` first, then letters, digits, `-`, `_`
/// and `.`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identifier(String);

impl Identifier {
    /// `text` as an identifier, or the sentence that says what is wrong.
    pub fn parse(text: &str) -> Result<Identifier, String> {
        let refuse = |why: &str| {
            Err(format!(
                "`{}` is not a package identifier: {why}",
                fencelab_model::text::visible(text)
            ))
        };
        let Some(first) = text.chars().next() else {
            return refuse("it is empty; give a name such as `fencing-week-3`");
        };
        if text.chars().count() > IDENTIFIER_CHARS_MAX {
            return refuse(&format!(
                "it is longer than {IDENTIFIER_CHARS_MAX} characters"
            ));
        }
        if !(first.is_ascii_alphabetic() || first == '_') {
            return refuse(
                "it must start with an ASCII letter or `_` (the ADL schemas type it xs:ID)",
            );
        }
        if let Some(c) = text
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            return refuse(&format!(
                "it holds `{}`; an identifier holds only ASCII letters, digits, `-`, `_` and `.` \
                 (the ADL schemas type it xs:ID)",
                c.escape_default()
            ));
        }
        let own = OWN_IDENTIFIERS.contains(&text)
            || OWN_IDENTIFIER_PREFIXES.iter().any(|p| text.starts_with(p));
        if own {
            return refuse(
                "the manifest names its own parts `course`, `site`, `item-...` and `sco-...`, \
                 and an XML document may hold an identifier once: choose another",
            );
        }
        Ok(Identifier(text.to_string()))
    }

    /// The identifier of a package titled `course` when its author gave
    /// none: the title's ASCII letters and digits (each other character a
    /// `-`), with the version, so a 1.2 and a 2004 package of one course
    /// are two courses to an LMS.
    pub fn of_course(course: &str, version: Version) -> Identifier {
        let word: String = course
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let version = version.name().replace('.', "");
        Identifier(format!(
            "fencelab-{}-scorm{version}",
            word.trim_matches('-')
        ))
    }

    /// The identifier of the package of one exercise of this course: the
    /// exercise's id (lowercase letters, digits and dashes) appended.
    pub fn with_exercise(&self, exercise_id: &str) -> Identifier {
        Identifier(format!("{}-{exercise_id}", self.0))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What the LMS lists a package as.
pub struct Course<'a> {
    pub identifier: &'a Identifier,
    pub title: &'a str,
    /// What an error about the title names: `--title`, or an exercise's
    /// file and field.
    pub title_field: &'a str,
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

/// The manifest of the package `course`, listing `scos` and `files`
/// (every other file of the package, the site's), or which text XML cannot
/// hold.
pub fn write(
    version: Version,
    course: &Course,
    scos: &[Sco],
    files: &[String],
) -> Result<String, Unholdable> {
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
        id = course.identifier.as_str(),
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
        escape(course.title, course.title_field)?
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

/// A text that an XML document cannot hold: the field it is in (an
/// exercise file's `title`, `--title`, a site's file name) and the first
/// character XML 1.0 refuses in it. Its `Display` is the sentence the
/// command prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unholdable {
    pub field: String,
    pub character: char,
}

impl std::fmt::Display for Unholdable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: holds U+{:04X}, which an XML document cannot hold; write the text without it",
            fencelab_model::text::visible(&self.field),
            u32::from(self.character)
        )
    }
}

/// `text` for an XML attribute or element (or HTML's), or the field
/// `field` and the character XML 1.0 cannot hold in it: a C0 control
/// other than tab and the line breaks, U+FFFE or U+FFFF (production 2,
/// `Char`; a surrogate cannot be in a Rust string). Such a character is
/// refused, not dropped: the package would otherwise say another text
/// than the one its author wrote, or not be XML at all. Tab and the line
/// breaks are written as character references, which no XML reader
/// normalizes away.
pub fn escape(text: &str, field: &str) -> Result<String, Unholdable> {
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
                return Err(Unholdable {
                    field: field.to_string(),
                    character: c,
                });
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

    /// The manifest of a course titled `title` (by `--title`), under the
    /// identifier made from it.
    fn titled(
        version: Version,
        title: &str,
        scos: &[Sco],
        files: &[String],
    ) -> Result<String, Unholdable> {
        let identifier = Identifier::of_course(title, version);
        let course = Course {
            identifier: &identifier,
            title,
            title_field: "--title",
        };
        write(version, &course, scos, files)
    }

    #[test]
    fn each_version_has_its_namespaces_and_spelling() {
        let files = vec!["index.html".to_string()];
        let v12 = titled(Version::Scorm12, "Week 3", &scos(), &files).unwrap();
        assert!(v12.contains("<schemaversion>1.2</schemaversion>"));
        assert!(v12.contains("xmlns=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2\""));
        assert!(v12.contains("adlcp:scormtype=\"sco\" href=\"scorm/my-claim.html\""));
        assert!(v12.contains("identifier=\"fencelab-Week-3-scorm12\""));
        let v2004 = titled(Version::Scorm2004, "Week 3", &scos(), &files).unwrap();
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
        let refused = |field: &str, character: char| Unholdable {
            field: field.to_string(),
            character,
        };
        for (bad, code) in [
            ('\u{fffe}', "U+FFFE"),
            ('\u{ffff}', "U+FFFF"),
            ('\u{1}', "U+0001"),
        ] {
            let mut listed = scos();
            listed[0].title = format!("Claims{bad}");
            let error = titled(Version::Scorm2004, "Week 3", &listed, &files).unwrap_err();
            assert_eq!(error, refused("site/exercises/my-claim.toml: title", bad));
            assert_eq!(
                error.to_string(),
                format!(
                    "site/exercises/my-claim.toml: title: holds {code}, which an XML document \
                     cannot hold; write the text without it"
                )
            );
            let error =
                titled(Version::Scorm12, &format!("Week{bad}"), &scos(), &files).unwrap_err();
            assert_eq!(error, refused("--title", bad));
            let error =
                titled(Version::Scorm12, "Week", &scos(), &[format!("a{bad}.js")]).unwrap_err();
            assert_eq!(error, refused(&format!("the site's file `a{bad}.js`"), bad));
        }
        // What XML allows is kept, the breaks as references a reader keeps.
        let xml = titled(
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
    fn an_identifier_the_author_gives_is_the_manifests_and_must_be_an_xml_id() {
        let files = vec!["index.html".to_string()];
        let identifier = Identifier::parse("fencing_week-3.v2").unwrap();
        let course = Course {
            identifier: &identifier,
            title: "Fencing, week 3",
            title_field: "--title",
        };
        let xml = write(Version::Scorm2004, &course, &scos(), &files).unwrap();
        assert!(
            xml.contains("<manifest identifier=\"fencing_week-3.v2\" "),
            "{xml}"
        );
        assert!(xml.contains("<title>Fencing, week 3</title>"), "{xml}");
        assert_eq!(
            identifier.with_exercise("my-claim").as_str(),
            "fencing_week-3.v2-my-claim"
        );
        for (bad, why) in [
            ("", "it is empty"),
            ("3rd-week", "must start with an ASCII letter or `_`"),
            ("-week", "must start with an ASCII letter or `_`"),
            ("week 3", "it holds ` `"),
            ("week:3", "it holds `:`"),
            ("semaine-\u{e9}", "it holds `\\u{e9}`"),
            ("course", "its own parts"),
            ("site", "its own parts"),
            ("item-my-claim", "its own parts"),
            ("sco-x", "its own parts"),
        ] {
            let error = Identifier::parse(bad).unwrap_err();
            assert!(
                error.starts_with("`")
                    && error.contains("is not a package identifier: ")
                    && error.contains(why),
                "{bad:?}: {error}"
            );
        }
        let long = "a".repeat(IDENTIFIER_CHARS_MAX);
        assert!(Identifier::parse(&long).is_ok());
        let error = Identifier::parse(&format!("{long}a")).unwrap_err();
        assert!(error.contains("longer than 100 characters"), "{error}");
    }

    #[test]
    fn an_identifier_made_from_a_title_is_one_the_parser_takes() {
        for title in [
            "Week 3",
            "",
            "Неделя 3",
            "  --3rd week: fences!  ",
            "course",
        ] {
            for version in [Version::Scorm12, Version::Scorm2004] {
                let made = Identifier::of_course(title, version);
                assert_eq!(
                    Identifier::parse(made.as_str()).as_ref(),
                    Ok(&made),
                    "{title:?}"
                );
                let each = made.with_exercise("my-claim");
                assert_eq!(Identifier::parse(each.as_str()).as_ref(), Ok(&each));
            }
        }
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
