//! The typed reader's side of the one walk ([`crate::de::walk`]): the walk reads the tokens and
//! checks each container's header (its depth, and that its items can fit in the input); the
//! typed reader says which node each item is read as, builds what the node names, and adds the
//! place of a failed item to the error's path on the way out.
//!
//! The node of the item about to be walked is kept in the decoder ([`TypedDecoder::node`]): set
//! for the root, by [`Policy::before_item`] for an array's item and by [`Policy::key`] for a
//! map's value, so that the hooks that build (`scalar`, `array_begin`, `map_begin`) dispatch on
//! the node and the token.

use super::decode::{made, TypedDecoder};
use super::error::{Step, TError, TResult};
use super::plan::{Class, Field, Node};
use crate::de::error::{DeError, Kind};
use crate::de::reader::Reader;
use crate::de::skip;
use crate::de::token::{self, Token};
use crate::de::walk::{Begin, Policy};
use crate::ffi::{self, Owned};

/// Fields kept inline while a class is read; a class with more uses the heap.
const STACK_FIELDS: usize = 16;

/// The values of a class's fields while it is read, one slot a field.
// Inline: a class's slots live in the walk's frame for the map or array, made in place, never
// moved while the items are read, and a small class costs no allocation.
#[allow(clippy::large_enum_variant)]
#[repr(u8)]
pub enum Slots {
    Stack([Option<Owned>; STACK_FIELDS], usize),
    Heap(Vec<Option<Owned>>),
}

impl Slots {
    #[inline(always)]
    fn new(n: usize) -> Slots {
        if n <= STACK_FIELDS {
            Slots::Stack(Default::default(), n)
        } else {
            Slots::Heap((0..n).map(|_| None).collect())
        }
    }

    #[inline(always)]
    pub fn get(&mut self) -> &mut [Option<Owned>] {
        match self {
            Slots::Stack(slots, n) => &mut slots[..*n],
            Slots::Heap(slots) => slots,
        }
    }
}

/// What an array is read into.
// Inline, as [`Slots`].
// An explicit tag, tested for every item (cheaper than a niche in a field).
#[allow(clippy::large_enum_variant)]
#[repr(u8)]
pub enum Seq {
    List(Owned),
    Tuple(Owned),
    /// A set (frozen or not), and where the item being read starts (for an unhashable one).
    Set(Owned, usize),
    /// A NamedTuple's fields.
    Named(Slots),
}

pub struct TArray {
    seq: Seq,
    /// The array's node.
    node: usize,
    /// The node of every item, when it is the same for all (a list's, a set's).
    item: Option<usize>,
    /// How deep its items are nested.
    depth: u32,
}

// Inline, as [`Slots`].
#[allow(clippy::large_enum_variant)]
#[repr(u8)]
pub enum TMap<'a> {
    Dict {
        dict: Owned,
        key: usize,
        value: usize,
    },
    Class {
        node: usize,
        class: &'a Class,
        slots: Slots,
        /// The field after the last one read (`packb` writes the fields in order).
        next: usize,
    },
}

/// A map's key, as the typed reader reads it.
#[repr(u8)]
pub enum TKey {
    /// A dict's key.
    Obj(Owned),
    /// The key of the class field with this index.
    Field(usize),
    /// A key no field takes (unknown, or a field set by no `__init__`): its value is skipped.
    Skip,
}

/// `dict[key] = value`, for a dict being read.
#[inline(always)]
fn dict_entry(dict: &Owned, key: &Owned, value: &Owned, key_start: usize) -> TResult<()> {
    // SAFETY: attached (a typed read); `dict` is the new dict the map is read into.
    if unsafe { ffi::dict_set(dict, key, value) } {
        return Ok(());
    }
    Err(TError::invalid_from(
        "expected a hashable map key, found an unhashable one".to_owned(),
        key_start,
        ffi::fetch_error(),
    ))
}

#[cold]
fn field_step(f: &Field) -> Step {
    Step::Field(String::from_utf8_lossy(&f.bytes).into())
}

impl<'a> TypedDecoder<'a> {
    /// The class of an array or map node, or nothing.
    #[inline(always)]
    fn class_of(&self, node: usize) -> Option<&'a Class> {
        let nodes: &'a [super::plan::Named] = self.nodes;
        match &nodes[node].node {
            Node::Dataclass(class) | Node::TypedDict(class) | Node::NamedTuple(class) => {
                Some(class)
            }
            _ => None,
        }
    }

    /// Reads a str key and finds the field it names, in a map read as `class`.
    #[inline(always)]
    fn field_key(
        &mut self,
        node: usize,
        class: &'a Class,
        next: usize,
        depth: u32,
    ) -> TResult<TKey> {
        let key_start = self.r.pos;
        let key = match token::next_key(&mut self.r)? {
            Ok(bytes) => bytes,
            Err(token) => return Err(self.not_a_field_name(node, &token, key_start)),
        };
        let fields = &class.fields;
        // Maps written by packb list the fields in order: try the next one first.
        let found = match fields.get(next) {
            Some(f) if *f.bytes == *key => Some(next),
            _ => fields.iter().position(|f| *f.bytes == *key),
        };
        match found {
            Some(i) if fields[i].init => {
                self.node = fields[i].node;
                self.depth = depth + 1;
                Ok(TKey::Field(i))
            }
            Some(_) => Ok(TKey::Skip),
            None => {
                if !key.is_ascii() && simdutf8::basic::from_utf8(key).is_err() {
                    return Err(DeError::input(Kind::InvalidUtf8, key_start).into());
                }
                if self.forbid_unknown {
                    return Err(self.unknown_field(node, key, key_start));
                }
                Ok(TKey::Skip)
            }
        }
    }

    /// The node of item `i` of a tuple's or NamedTuple's array (the header checked its length).
    #[inline(always)]
    fn item_node(&self, node: usize, i: usize) -> usize {
        match &self.nodes[node].node {
            Node::Tuple(items) => items.get(i).copied().unwrap_or(node),
            Node::NamedTuple(class) => class.fields.get(i).map_or(node, |f| f.node),
            _ => node,
        }
    }

    #[cold]
    fn not_a_field_name(&self, node: usize, token: &Token<'_>, start: usize) -> TError {
        TError::invalid(
            format!(
                "expected {} (a map of str field names), found a {} key",
                self.nodes[node].name,
                token.type_name()
            ),
            start,
        )
    }

    #[cold]
    fn unknown_field(&self, node: usize, key: &[u8], start: usize) -> TError {
        TError::invalid_as(
            "unknown_field",
            format!(
                "expected {}, found unknown field {:?} (OPT_FORBID_UNKNOWN_FIELDS)",
                self.nodes[node].name,
                String::from_utf8_lossy(key)
            ),
            start,
        )
    }

    #[cold]
    fn wrong_length(&self, node: usize, expected: String, n: usize, start: usize) -> TError {
        TError::invalid(
            format!(
                "expected {} (an array of {expected} items), found an array of {n} items",
                self.nodes[node].name,
            ),
            start,
        )
    }
}

impl<'a> Policy<'a> for TypedDecoder<'a> {
    type Value = Owned;
    type Error = TError;
    type Array = TArray;
    type Map = TMap<'a>;
    type Key = TKey;

    #[inline(always)]
    fn reader(&mut self) -> &mut Reader<'a> {
        &mut self.r
    }

    #[inline(always)]
    fn reader_ref(&self) -> &Reader<'a> {
        &self.r
    }

    /// A container the node cannot be read from is refused before its header is checked, and
    /// a tuple's or NamedTuple's length before its items are read.
    #[inline(always)]
    fn header(&self, token: &Token<'a>, start: usize) -> TResult<()> {
        let node = self.node;
        match (&self.nodes[node].node, token) {
            (
                Node::List(_) | Node::VarTuple(_) | Node::Set(_) | Node::FrozenSet(_),
                Token::Array(_),
            )
            | (Node::Dict(..) | Node::Dataclass(_) | Node::TypedDict(_), Token::Map(_)) => Ok(()),
            (Node::Tuple(items), &Token::Array(n)) => {
                if n == items.len() {
                    Ok(())
                } else {
                    Err(self.wrong_length(node, items.len().to_string(), n, start))
                }
            }
            (Node::NamedTuple(class), &Token::Array(n)) => {
                if n <= class.fields.len() && n >= class.required {
                    Ok(())
                } else {
                    let range = format!("{} to {}", class.required, class.fields.len());
                    Err(self.wrong_length(node, range, n, start))
                }
            }
            (_, token) => Err(self.mismatch(node, token, start)),
        }
    }

    #[inline(always)]
    fn scalar(&mut self, token: Token<'a>, _depth: u32, start: usize) -> TResult<Owned> {
        self.typed_scalar(self.node, token, start)
    }

    /// An item whose node reads the value whole (`Any`, a union, an Enum, ...), read here.
    #[inline(always)]
    fn quick_item(&mut self) -> Option<TResult<Owned>> {
        self.quick(self.depth)
    }

    #[inline(always)]
    fn quick_value(&mut self) -> Option<TResult<Owned>> {
        self.quick(self.depth)
    }

    #[inline(always)]
    fn array_begin(&mut self, n: usize, depth: u32, start: usize) -> TResult<TArray> {
        let node = self.node;
        // SAFETY: attached; the walk fills each slot `i < n` of a new list or tuple once.
        let seq = unsafe {
            match &self.nodes[node].node {
                Node::List(_) => Seq::List(made(ffi::new_list(n))?),
                Node::VarTuple(_) | Node::Tuple(_) => Seq::Tuple(made(ffi::new_tuple(n))?),
                Node::Set(_) => Seq::Set(ffi::new_set(false)?, start),
                Node::FrozenSet(_) => Seq::Set(ffi::new_set(true)?, start),
                Node::NamedTuple(class) => Seq::Named(Slots::new(class.fields.len())),
                // Refused by `header` before the walk gets here.
                _ => return Err(self.mismatch(node, &Token::Array(n), start)),
            }
        };
        let item = match &self.nodes[node].node {
            Node::List(item) | Node::VarTuple(item) | Node::Set(item) | Node::FrozenSet(item) => {
                Some(*item)
            }
            _ => None,
        };
        Ok(TArray {
            seq,
            node,
            item,
            depth: depth + 1,
        })
    }

    #[inline(always)]
    fn before_item(&mut self, array: &mut TArray, i: usize, at: usize) -> TResult<()> {
        self.node = match array.item {
            Some(item) => item,
            None => self.item_node(array.node, i),
        };
        self.depth = array.depth;
        if let Seq::Set(_, item_start) = &mut array.seq {
            *item_start = at;
        }
        Ok(())
    }

    #[inline(always)]
    fn array_item(&mut self, array: &mut TArray, i: usize, item: Owned) -> TResult<()> {
        // SAFETY: attached; each slot `i < n` of the new list or tuple is filled once, and the
        // new set is not shared until the walk hands it over.
        unsafe {
            match &mut array.seq {
                Seq::List(list) => ffi::list_set(list, i, item),
                Seq::Tuple(tuple) => ffi::tuple_set(tuple, i, item),
                Seq::Set(set, item_start) => {
                    if let Err(cause) = ffi::set_add(set, &item) {
                        return Err(TError::invalid_from(
                            "expected a hashable set item, found an unhashable one".to_owned(),
                            *item_start,
                            cause,
                        )
                        .at(Step::Index(i)));
                    }
                }
                Seq::Named(slots) => {
                    if let Some(slot) = slots.get().get_mut(i) {
                        *slot = Some(item);
                    }
                }
            }
        }
        Ok(())
    }

    #[cold]
    fn item_failed(&mut self, array: &TArray, i: usize, err: TError) -> TError {
        match self.class_of(array.node) {
            Some(class) if i < class.fields.len() => err.at(field_step(&class.fields[i])),
            _ => err.at(Step::Index(i)),
        }
    }

    #[inline(always)]
    fn array_end(&mut self, array: TArray, start: usize) -> TResult<Owned> {
        match array.seq {
            Seq::List(obj) | Seq::Tuple(obj) | Seq::Set(obj, _) => Ok(obj),
            Seq::Named(mut slots) => match self.class_of(array.node) {
                Some(class) => self.named_tuple(array.node, class, slots.get(), start),
                None => Err(self.mismatch(array.node, &Token::Array(0), start)),
            },
        }
    }

    #[inline(always)]
    fn map_begin(
        &mut self,
        n: usize,
        _depth: u32,
        start: usize,
    ) -> TResult<Begin<TMap<'a>, Owned>> {
        let node = self.node;
        let nodes: &'a [super::plan::Named] = self.nodes;
        match &nodes[node].node {
            &Node::Dict(key, value) => Ok(Begin::Walk(TMap::Dict {
                // SAFETY: attached.
                dict: made(unsafe { ffi::new_dict(n) })?,
                key,
                value,
            })),
            Node::Dataclass(class) | Node::TypedDict(class) => Ok(Begin::Walk(TMap::Class {
                node,
                class,
                slots: Slots::new(class.fields.len()),
                next: 0,
            })),
            _ => Err(self.mismatch(node, &Token::Map(n), start)),
        }
    }

    #[inline(always)]
    fn key(&mut self, map: &mut TMap<'a>, _i: usize, depth: u32) -> TResult<TKey> {
        match *map {
            TMap::Dict { key, value, .. } => {
                let key = self.dict_key(key, depth + 1)?;
                self.node = value;
                self.depth = depth + 1;
                Ok(TKey::Obj(key))
            }
            TMap::Class {
                node, class, next, ..
            } => self.field_key(node, class, next, depth),
        }
    }

    #[inline(always)]
    fn skip_value(&mut self, _map: &mut TMap<'a>, key: &TKey, depth: u32) -> TResult<bool> {
        if let TKey::Skip = key {
            skip::skip_value(&mut self.r, depth + 1)?;
            return Ok(true);
        }
        Ok(false)
    }

    #[cold]
    fn value_failed(&mut self, map: &TMap<'a>, key: &TKey, err: TError) -> TError {
        match (map, key) {
            // SAFETY: attached; the key is live.
            (_, TKey::Obj(key)) => err.at(Step::Key(unsafe { ffi::repr_string(key.as_ptr()) })),
            (TMap::Class { class, .. }, &TKey::Field(i)) => err.at(field_step(&class.fields[i])),
            _ => err,
        }
    }

    #[inline(always)]
    fn map_entry(
        &mut self,
        map: &mut TMap<'a>,
        key: TKey,
        value: Owned,
        key_start: usize,
        _value_start: usize,
    ) -> TResult<()> {
        match (map, key) {
            (TMap::Dict { dict, .. }, TKey::Obj(key)) => dict_entry(dict, &key, &value, key_start)?,
            (TMap::Class { slots, next, .. }, TKey::Field(i)) => {
                if let Some(slot) = slots.get().get_mut(i) {
                    *slot = Some(value);
                }
                *next = i + 1;
            }
            _ => {}
        }
        Ok(())
    }

    #[inline(always)]
    fn map_end(&mut self, map: TMap<'a>, start: usize) -> TResult<Owned> {
        match map {
            TMap::Dict { dict, .. } => Ok(dict),
            TMap::Class {
                node,
                class,
                mut slots,
                ..
            } => {
                let values = slots.get();
                if matches!(self.nodes[node].node, Node::TypedDict(_)) {
                    self.typed_dict(node, class, values, start)
                } else {
                    self.dataclass(node, class, values, start)
                }
            }
        }
    }
}
