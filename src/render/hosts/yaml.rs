//! The YAML writer of the host files: any [`serde::Serialize`] value (the netplan and Spiderpool types
//! of [`super::netplan`] and [`super::spiderpool`]) as block YAML, written straight into a `String`
//! with no tree in between. serde_norway writes the same documents through libyaml's emitter about 16
//! times slower (100,000 routed SpiderIPPools, 27 MB: 1.31 s against 0.08 s printed directly, one
//! core, release build), a second more per render at 100K GPUs; the tests read every file back with it.
//!
//! One style, so that every file reads alike and diffs line by line:
//! - mappings and sequences in block style, a sequence's items two columns in from their key (`- `),
//!   an empty one as `{}` or `[]`;
//! - every string value and string key double-quoted, escaped as YAML's double-quoted scalars are
//!   (`\"`, `\\`, `\n`, `\xNN`, `\uNNNN`, `\UNNNNNNNN`): nothing a string holds can end its scalar or its
//!   line, and the output is ASCII;
//! - field names and unit enum variants (identifiers spelt in the code: `on-link`, `SpiderIPPool`,
//!   `link`) plain when YAML reads them back as the same string, quoted otherwise; integers and
//!   booleans plain, `null` for nothing;
//! - comments only as whole lines before a document ([`comment`]), checked to be one line.
//!
//! Tuple and struct enum variants and byte strings are refused ([`Error::Unsupported`]): no host file
//! has them.

use serde::Serialize;
use serde::ser::{self, Impossible};
use std::fmt::{self, Write as _};

/// Why a value could not be written as YAML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A kind of value this writer does not write.
    #[error("YAML: {0} cannot be written")]
    Unsupported(&'static str),
    /// A mapping key that is not a scalar.
    #[error("YAML: a mapping key must be a string, a number, a boolean or a unit variant")]
    KeyNotScalar,
    /// An error a `Serialize` implementation raised.
    #[error("YAML: {0}")]
    Custom(String),
    /// A comment that is not one line of printable ASCII.
    #[error("comment {0:?} is not one line of printable ASCII")]
    Comment(String),
}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::Custom(msg.to_string())
    }
}

/// Appends `value` to `o` as one YAML document (without `---`). On an error `o` may hold part of it.
pub fn push<T: Serialize + ?Sized>(o: &mut String, value: &T) -> Result<(), Error> {
    value.serialize(Writer {
        out: o,
        place: Place::Top,
        col: 0,
    })
}

/// Appends `# text` as one comment line, refusing text that is not one line of printable ASCII (a
/// newline would end the comment and start YAML).
pub fn comment(o: &mut String, text: &str) -> Result<(), Error> {
    if !text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err(Error::Comment(text.to_string()));
    }
    o.push_str("# ");
    o.push_str(text);
    o.push('\n');
    Ok(())
}

/// Where a value goes: what is already on its line and what must follow it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A whole document: a scalar alone on its line, a collection's entries at column 0.
    Top,
    /// After `key:`: a scalar after a space, a collection on the lines below.
    Value,
    /// After `- `: a scalar right there, a collection's first entry on the same line.
    Item,
    /// A mapping key: a scalar only, nothing after it.
    Key,
}

/// The serializer: the output, the place of the value, and the column a collection's entries start at.
struct Writer<'o> {
    out: &'o mut String,
    place: Place,
    col: usize,
}

impl<'o> Writer<'o> {
    /// Writes one scalar, its text appended by `f`.
    fn scalar(self, f: impl FnOnce(&mut String)) -> Result<(), Error> {
        if self.place == Place::Value {
            self.out.push(' ');
        }
        f(self.out);
        if self.place != Place::Key {
            self.out.push('\n');
        }
        Ok(())
    }

    /// Starts a mapping or sequence.
    fn collection(self, empty: &'static str) -> Result<Collection<'o>, Error> {
        if self.place == Place::Key {
            return Err(Error::KeyNotScalar);
        }
        Ok(Collection {
            out: self.out,
            place: self.place,
            col: self.col,
            entries: 0,
            empty,
        })
    }
}

/// A mapping or sequence being written.
struct Collection<'o> {
    out: &'o mut String,
    place: Place,
    col: usize,
    entries: usize,
    /// How it is spelt with no entries: `{}` or `[]`.
    empty: &'static str,
}

impl Collection<'_> {
    /// Starts a line for the next entry (the first after `- ` stays on that line).
    fn entry(&mut self) {
        if self.entries == 0 && self.place == Place::Value {
            self.out.push('\n');
        }
        if !(self.entries == 0 && self.place == Place::Item) {
            (0..self.col).for_each(|_| self.out.push(' '));
        }
        self.entries += 1;
    }

    /// The writer of the value of the entry just started.
    fn value(&mut self, place: Place) -> Writer<'_> {
        Writer {
            out: self.out,
            place,
            col: self.col + 2,
        }
    }

    /// Writes `key: value`.
    fn pair<K, V>(&mut self, key: &K, value: &V) -> Result<(), Error>
    where
        K: Serialize + ?Sized,
        V: Serialize + ?Sized,
    {
        self.entry();
        key.serialize(self.value(Place::Key))?;
        self.out.push(':');
        value.serialize(self.value(Place::Value))
    }

    /// Writes `- item`.
    fn item<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), Error> {
        self.entry();
        self.out.push_str("- ");
        value.serialize(self.value(Place::Item))
    }

    /// Ends the collection: `{}` or `[]` if it had no entry.
    fn close(self) -> Result<(), Error> {
        if self.entries == 0 {
            if self.place == Place::Value {
                self.out.push(' ');
            }
            self.out.push_str(self.empty);
            self.out.push('\n');
        }
        Ok(())
    }
}

/// An identifier spelt in the code (a field name, a unit variant): plain when YAML reads it back as
/// this string, quoted otherwise.
fn ident(o: &mut String, s: &str) {
    if is_plain(s) {
        o.push_str(s);
    } else {
        quoted(o, s);
    }
}

/// Whether `s` reads back as the same string when written plain: a letter, then letters, digits and
/// `-_./`, and none of the words YAML 1.1 or 1.2 reads as a boolean or null.
pub fn is_plain(s: &str) -> bool {
    const WORDS: [&str; 9] = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
    s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b))
        && !WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))
}

/// Appends `s` double-quoted.
fn quoted(o: &mut String, s: &str) {
    o.push('"');
    escape(o, s);
    o.push('"');
}

/// Appends `s` escaped for a double-quoted scalar, as ASCII.
fn escape(o: &mut String, s: &str) {
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        o.push_str(s);
        return;
    }
    for c in s.chars() {
        let _ = match c {
            '"' => o.write_str("\\\""),
            '\\' => o.write_str("\\\\"),
            '\n' => o.write_str("\\n"),
            '\t' => o.write_str("\\t"),
            '\r' => o.write_str("\\r"),
            '\0' => o.write_str("\\0"),
            ' '..='~' => o.write_char(c),
            c if u32::from(c) <= 0xff => write!(o, "\\x{:02X}", u32::from(c)),
            c if u32::from(c) <= 0xffff => write!(o, "\\u{:04X}", u32::from(c)),
            c => write!(o, "\\U{:08X}", u32::from(c)),
        };
    }
}

/// Escapes what a `Display` value writes (`collect_str`: addresses spelt with no copy).
struct Escaped<'o>(&'o mut String);

impl fmt::Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape(self.0, s);
        Ok(())
    }
}

/// Appends a floating-point number as YAML 1.2 reads it back.
fn float(o: &mut String, v: f64) {
    let _ = if v.is_nan() {
        o.write_str(".nan")
    } else if v.is_infinite() {
        o.write_str(if v > 0.0 { ".inf" } else { "-.inf" })
    } else {
        write!(o, "{v:?}")
    };
}

macro_rules! plain_number {
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<(), Error> {
            self.scalar(|o| { let _ = write!(o, "{v}"); })
        }
    )*};
}

impl<'o> ser::Serializer for Writer<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Collection<'o>;
    type SerializeTuple = Collection<'o>;
    type SerializeTupleStruct = Collection<'o>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Collection<'o>;
    type SerializeStruct = Collection<'o>;
    type SerializeStructVariant = Impossible<(), Error>;

    plain_number!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128, serialize_bool: bool);

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.scalar(|o| float(o, v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.scalar(|o| float(o, v))
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.scalar(|o| quoted(o, v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.scalar(|o| quoted(o, v))
    }
    fn collect_str<T: fmt::Display + ?Sized>(self, v: &T) -> Result<(), Error> {
        self.scalar(|o| {
            o.push('"');
            let _ = write!(Escaped(o), "{v}");
            o.push('"');
        })
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        Err(Error::Unsupported("a byte string"))
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.scalar(|o| o.push_str("null"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> Result<(), Error> {
        self.scalar(|o| ident(o, v))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        let mut map = self.collection("{}")?;
        map.pair(&Ident(variant), v)?;
        map.close()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Collection<'o>, Error> {
        self.collection("[]")
    }
    fn serialize_tuple(self, _: usize) -> Result<Collection<'o>, Error> {
        self.collection("[]")
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Collection<'o>, Error> {
        self.collection("[]")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(Error::Unsupported("a tuple enum variant"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Collection<'o>, Error> {
        self.collection("{}")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Collection<'o>, Error> {
        self.collection("{}")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(Error::Unsupported("a struct enum variant"))
    }
}

/// A field name or variant as a key: written as [`ident`] writes it.
struct Ident(&'static str);

impl Serialize for Ident {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_unit_variant("", 0, self.0)
    }
}

impl ser::SerializeSeq for Collection<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeTuple for Collection<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeTupleStruct for Collection<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeMap for Collection<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        self.entry();
        k.serialize(self.value(Place::Key))?;
        self.out.push(':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        v.serialize(self.value(Place::Value))
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeStruct for Collection<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.pair(&Ident(key), v)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

#[cfg(test)]
mod tests;
