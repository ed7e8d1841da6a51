//! The list of exercises the page shows: the one registry of which id is
//! listed, from which file, and which was listed provisionally from a
//! prerendered page. The page keeps none of its own: it lists what the
//! worker answers to each `Install` (`Installation`), so the two can never
//! disagree about an id.
//!
//! The rule: the bundled exercises come first, and the first exercise of an
//! id wins, but for one a site exercise's prerendered page carried (listed
//! provisionally), which the site's own file of its id replaces. A
//! prerendered page's copy never takes the place of anything. Must never
//! list two exercises of one id.

/// Where an exercise being installed goes ([`SiteList::enter`]).
#[derive(Debug, PartialEq)]
pub enum Place {
    /// Its id is listed already: a bundled exercise's (`None`) or the
    /// file's that was installed under it.
    Taken(Option<String>),
    /// Listed after the rest.
    New,
    /// Listed in the place of the provisional copy of its id.
    Replacing,
}

/// Every exercise listed, in order: the bundled ones, then each file's.
#[derive(Default)]
pub struct SiteList {
    entries: Vec<Entry>,
}

struct Entry {
    id: String,
    /// The file it was installed from; `None` for a bundled exercise.
    file: Option<String>,
    /// Installed from a prerendered page's copy, until its own file comes.
    provisional: bool,
}

impl SiteList {
    /// The bundled exercises' ids, listed first.
    pub fn bundled<'a>(ids: impl IntoIterator<Item = &'a str>) -> SiteList {
        SiteList {
            entries: ids
                .into_iter()
                .map(|id| Entry {
                    id: id.to_string(),
                    file: None,
                    provisional: false,
                })
                .collect(),
        }
    }

    /// Where the exercise `id` from `file` goes, noted unless it is taken:
    /// a `provisional` one (a prerendered page's copy) only where no
    /// exercise of its id is listed; a file's in the place of a
    /// provisional one, else where its id is not listed.
    pub fn enter(&mut self, id: &str, file: &str, provisional: bool) -> Place {
        let Some(entry) = self.entries.iter_mut().find(|entry| entry.id == id) else {
            self.entries.push(Entry {
                id: id.to_string(),
                file: Some(file.to_string()),
                provisional,
            });
            return Place::New;
        };
        if !entry.provisional || provisional {
            return Place::Taken(entry.file.clone());
        }
        entry.file = Some(file.to_string());
        entry.provisional = false;
        Place::Replacing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_of_an_id_wins_but_a_provisional_copy_gives_way_to_its_file_once() {
        let mut list = SiteList::bundled(["bundled"]);
        assert_eq!(list.enter("bundled", "b.toml", false), Place::Taken(None));
        assert_eq!(
            list.enter("bundled", "b.prerendered", true),
            Place::Taken(None)
        );
        assert_eq!(list.enter("mine", "mine.prerendered", true), Place::New);
        assert_eq!(
            list.enter("mine", "again.prerendered", true),
            Place::Taken(Some("mine.prerendered".into())),
            "a copy never replaces a copy"
        );
        assert_eq!(list.enter("mine", "mine.toml", false), Place::Replacing);
        assert_eq!(
            list.enter("mine", "again.toml", false),
            Place::Taken(Some("mine.toml".into()))
        );
        assert_eq!(list.enter("other", "other.toml", false), Place::New);
        assert_eq!(
            list.enter("other", "late.prerendered", true),
            Place::Taken(Some("other.toml".into()))
        );
    }
}
