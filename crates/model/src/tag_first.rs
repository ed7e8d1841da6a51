//! Reading an internally tagged enum's JSON (`#[serde(tag = "kind")]`:
//! `{"kind": "statement", "sql": ...}`) without buffering the object.
//!
//! serde's own reader for such an enum cannot know the variant until it has
//! met the tag, wherever the tag stands, so it reads the whole object into
//! its untyped `Content` first and the variant from there: every type inside
//! the enum gets a second reader, over `Content`, and each object is read
//! twice. A history's events are such objects, and the page reads a report's
//! history on every keystroke. fencelab writes the tag first (serde's writer
//! does), so [`read`] takes the tag from the object's first field and reads
//! the variant from the fields after it, through a mirror of the enum that
//! serde derives externally tagged (`{"statement": {...}}`): it is handed
//! the tag as the variant's name and the rest of the object as the
//! variant's fields. An object whose first field is not the tag (written by
//! hand, or through a `serde_json::Value`, whose objects are ordered by
//! key) is collected, written again with its tag first and read so: slower,
//! and the same result.
//!
//! Each enum read this way derives `Serialize` as before and implements
//! `Deserialize` by calling [`read`] with its mirror: a private enum with
//! the same variants, fields and names, and a `From` into the enum. Each
//! enum's tests write every variant and read it back, so a mirror that
//! drifts from its enum fails them.

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess,
    VariantAccess, Visitor,
};
use std::fmt;
use std::marker::PhantomData;

/// Reads a `T`, internally tagged by `tag`, through its externally tagged
/// mirror `M` (see the module's documentation).
pub(crate) fn read<'de, D, T, M>(deserializer: D, tag: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
    M: Deserialize<'de> + Into<T>,
{
    deserializer.deserialize_map(TagFirst::<T, M> {
        tag,
        marker: PhantomData,
    })
}

struct TagFirst<T, M> {
    tag: &'static str,
    marker: PhantomData<(T, M)>,
}

impl<'de, T, M> Visitor<'de> for TagFirst<T, M>
where
    T: DeserializeOwned,
    M: Deserialize<'de> + Into<T>,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object whose `{}` names its kind", self.tag)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        match map.next_key_seed(FirstKey(self.tag))? {
            None => Err(de::Error::missing_field(self.tag)),
            Some(Key(None)) => M::deserialize(Variant { fields: map }).map(Into::into),
            Some(Key(Some(first))) => {
                let mut fields = vec![(first, map.next_value::<serde_json::Value>()?)];
                while let Some(field) = map.next_entry::<String, serde_json::Value>()? {
                    fields.push(field);
                }
                let text = with_tag_first(self.tag, fields)?;
                serde_json::from_str(&text).map_err(de::Error::custom)
            }
        }
    }
}

/// An object's first key: `None` when it is the tag (nothing kept), else
/// the key, kept for the slow path.
struct Key(Option<String>);

/// Reads the first key, comparing it with the tag without keeping it.
struct FirstKey(&'static str);

impl<'de> DeserializeSeed<'de> for FirstKey {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for FirstKey {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(Key((key != self.0).then(|| key.to_string())))
    }
}

/// The object's JSON text again, its tag first, or the error of an object
/// without one.
fn with_tag_first<E: de::Error>(
    tag: &'static str,
    fields: Vec<(String, serde_json::Value)>,
) -> Result<String, E> {
    let (tags, rest): (Vec<_>, Vec<_>) = fields.into_iter().partition(|(key, _)| key == tag);
    let Some((_, kind)) = tags.into_iter().next() else {
        return Err(E::missing_field(tag));
    };
    let mut text = String::from("{");
    let mut field = |key: &str, value: &serde_json::Value| -> Result<(), E> {
        if text.len() > 1 {
            text.push(',');
        }
        text += &serde_json::to_string(key).map_err(E::custom)?;
        text.push(':');
        text += &serde_json::to_string(value).map_err(E::custom)?;
        Ok(())
    };
    field(tag, &kind)?;
    for (key, value) in &rest {
        field(key, value)?;
    }
    text.push('}');
    Ok(text)
}

/// The rest of an object whose tag has been read: to the mirror, an enum
/// whose variant's name is the tag's value and whose fields follow it.
struct Variant<A> {
    fields: A,
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for Variant<A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de, A: MapAccess<'de>> EnumAccess<'de> for Variant<A> {
    type Error = A::Error;
    type Variant = Self;

    /// The variant's name is the tag's value, read where it stands.
    fn variant_seed<V: DeserializeSeed<'de>>(
        mut self,
        seed: V,
    ) -> Result<(V::Value, Self), A::Error> {
        let name = self.fields.next_value_seed(seed)?;
        Ok((name, self))
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for Variant<A> {
    type Error = A::Error;

    /// A variant without fields: whatever else the object holds is skipped.
    fn unit_variant(mut self) -> Result<(), A::Error> {
        while self
            .fields
            .next_entry::<IgnoredAny, IgnoredAny>()?
            .is_some()
        {}
        Ok(())
    }

    /// A variant holding one struct, whose fields stand beside the tag.
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        seed.deserialize(MapAccessDeserializer::new(self.fields))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, A::Error> {
        Err(de::Error::invalid_type(de::Unexpected::Map, &visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        visitor.visit_map(self.fields)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    /// An enum of each shape a mirror can have: a unit variant, a struct
    /// variant and a variant holding a struct.
    #[derive(Debug, PartialEq, Serialize)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Shape {
        Point,
        Circle { radius: u32, label: String },
        Boxed(Corners),
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Corners {
        width: u32,
        height: u32,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum ShapeRead {
        Point,
        Circle { radius: u32, label: String },
        Boxed(Corners),
    }

    impl From<ShapeRead> for Shape {
        fn from(read: ShapeRead) -> Shape {
            match read {
                ShapeRead::Point => Shape::Point,
                ShapeRead::Circle { radius, label } => Shape::Circle { radius, label },
                ShapeRead::Boxed(corners) => Shape::Boxed(corners),
            }
        }
    }

    impl<'de> Deserialize<'de> for Shape {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
            super::read::<D, Shape, ShapeRead>(d, "kind")
        }
    }

    fn shapes() -> Vec<Shape> {
        vec![
            Shape::Point,
            Shape::Circle {
                radius: 3,
                label: "a \"quoted\" ring 🦀".into(),
            },
            Shape::Boxed(Corners {
                width: 4,
                height: 5,
            }),
        ]
    }

    #[test]
    fn every_shape_reads_back_from_what_serde_writes() {
        let written = serde_json::to_string(&shapes()).unwrap();
        assert_eq!(
            written,
            r#"[{"kind":"point"},{"kind":"circle","radius":3,"label":"a \"quoted\" ring 🦀"},{"kind":"boxed","width":4,"height":5}]"#
        );
        assert_eq!(
            serde_json::from_str::<Vec<Shape>>(&written).unwrap(),
            shapes()
        );
    }

    #[test]
    fn a_tag_that_is_not_first_reads_the_same() {
        let written = r#"[{"kind":"point","extra":[1,{"kind":2}]},
            {"radius":3,"label":"a \"quoted\" ring 🦀","kind":"circle"},
            {"width":4,"kind":"boxed","height":5}]"#;
        assert_eq!(
            serde_json::from_str::<Vec<Shape>>(written).unwrap(),
            shapes()
        );
        // Through a Value, whose objects are ordered by key ("height" and
        // "label" before "kind").
        let value = serde_json::to_value(shapes()).unwrap();
        assert_eq!(
            serde_json::from_value::<Vec<Shape>>(value).unwrap(),
            shapes()
        );
    }

    #[test]
    fn an_object_without_its_tag_or_of_an_unknown_kind_is_refused_in_words() {
        let refused = |text: &str| serde_json::from_str::<Shape>(text).unwrap_err().to_string();
        assert!(refused(r#"{"radius":3}"#).contains("missing field `kind`"));
        assert!(refused("{}").contains("missing field `kind`"));
        let unknown = refused(r#"{"kind":"square","side":2}"#);
        assert!(unknown.contains("unknown variant `square`"), "{unknown}");
        let late = refused(r#"{"side":2,"kind":"square"}"#);
        assert!(late.contains("unknown variant `square`"), "{late}");
        let missing = refused(r#"{"kind":"circle","radius":3}"#);
        assert!(missing.contains("missing field `label`"), "{missing}");
        assert!(refused(r#"[1,2]"#).contains("an object whose `kind` names its kind"));
    }
}
