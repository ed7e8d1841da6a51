//! fencelab's exercise reader: the model's TOML loader in a Web Worker of
//! its own, which the checking worker (web/worker) starts the first time a
//! text needs it and asks with a [`ReadRequest`] as JSON text: a site's
//! exercise file, an exercise link's, an author's draft, a site index in a
//! form `SiteIndex::parse_written` does not read. The loader is a third of
//! what the checking worker would otherwise carry (the TOML parser, the
//! Markdown renderer, the file types' readers), and a first visit to a
//! bundled exercise needs none of it, so neither wasm file fetched before
//! the first edit holds it.
//!
//! [`read`] is the whole of what it does, natively too (the checking
//! worker's tests answer their reads with it); `worker.rs` is the glue to
//! its message port.
//!
//! Must never: panic on a text, try a schema (it has no SQLite: the
//! checking worker does), or keep state between questions.

use fencelab_model::exercise::Exercise;
use fencelab_model::site::SiteIndex;
use fencelab_protocol::reader::{FromReader, Read, ReadAnswer, ReadRequest, ReadResponse};
use fencelab_protocol::{decode, encode, seq_of_request};

pub mod worker;

/// What the loader makes of `read`.
pub fn read(read: &Read) -> ReadAnswer {
    match read {
        Read::Exercise { file, source } => {
            ReadAnswer::Exercise(Exercise::from_toml_unchecked(file, source).map(Box::new))
        }
        Read::Index { source } => ReadAnswer::Index(SiteIndex::parse(source)),
    }
}

/// The answer to a question's JSON text, as the JSON text of
/// [`FromReader::Answered`]: a question that cannot be decoded is answered
/// `Failed`, with its seq when it has one. `reading` is told the seq of a
/// question before it is read (the glue's panic hook answers it).
pub fn answer(question: &str, reading: impl FnOnce(u64)) -> String {
    let response = match decode::<ReadRequest>(question) {
        Ok(ReadRequest { seq, read: text }) => {
            reading(seq);
            ReadResponse {
                seq,
                answer: read(&text),
            }
        }
        Err(error) => ReadResponse {
            seq: seq_of_request(question),
            answer: ReadAnswer::Failed(format!(
                "the exercise reader could not read a question: {error}"
            )),
        },
    };
    encode(&FromReader::Answered(response))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_model::bundled::FILES;

    fn answered(question: &ReadRequest) -> ReadResponse {
        reply(&answer(&encode(question), |_| {}))
    }

    fn reply(text: &str) -> ReadResponse {
        match decode(text).expect("an answer decodes") {
            FromReader::Answered(response) => response,
            FromReader::Ready => panic!("an answer, not Ready"),
        }
    }

    #[test]
    fn a_file_is_read_as_the_loader_reads_it_with_its_schema_placed() {
        for (file, source) in FILES {
            let question = ReadRequest {
                seq: 9,
                read: Read::Exercise {
                    file: file.to_string(),
                    source: source.to_string(),
                },
            };
            let ReadResponse { seq, answer } = answered(&question);
            assert_eq!(seq, 9);
            let ReadAnswer::Exercise(Ok(unchecked)) = answer else {
                panic!("{file}: {answer:?}");
            };
            assert_eq!(Ok(unchecked.exercise), Exercise::from_toml(file, source));
            // The schema's error is placed where its key is in the file.
            let line = source
                .lines()
                .position(|line| line.starts_with("schema"))
                .expect("a schema key");
            assert_eq!(unchecked.schema.line, line + 1, "{file}");
            assert_eq!(unchecked.schema.file, *file);
        }
    }

    #[test]
    fn what_cannot_be_read_is_the_loaders_own_sentence() {
        let question = ReadRequest {
            seq: 3,
            read: Read::Exercise {
                file: "draft.toml".into(),
                source: "format = 1\nid = ".into(),
            },
        };
        let ReadAnswer::Exercise(Err(error)) = answered(&question).answer else {
            panic!("a broken file is an error");
        };
        assert_eq!(
            Err(error),
            Exercise::from_toml("draft.toml", "format = 1\nid = ")
        );

        let index = |source: &str| ReadRequest {
            seq: 4,
            read: Read::Index {
                source: source.into(),
            },
        };
        // A form only TOML reads: an inline comment, names on one line.
        let text = "format = 1 # the format\nexercises = [\"a.toml\", \"b.toml\"]\n";
        assert_eq!(SiteIndex::parse_written(text), None);
        assert_eq!(
            answered(&index(text)).answer,
            ReadAnswer::Index(SiteIndex::parse(text))
        );
        assert!(matches!(
            answered(&index("format = 9\nexercises = []")).answer,
            ReadAnswer::Index(Err(_))
        ));
    }

    #[test]
    fn a_question_that_is_not_one_is_answered_failed_with_its_seq() {
        let reply = reply(&answer("{\"Nonsense\":{\"seq\":12}}", |_| {}));
        assert_eq!(reply.seq, 12);
        assert!(
            matches!(&reply.answer, ReadAnswer::Failed(message) if message.contains("could not read a question")),
            "{reply:?}"
        );
        assert_eq!(super::tests::reply(&answer("not json", |_| {})).seq, 0);
    }
}
