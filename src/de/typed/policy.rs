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

/// Where the values of a class's fields are read, one slot a field: from `base` in
/// [`TypedDecoder::slots`], the stack of the slots of the classes being read (one allocation
/// for the whole call, and the walk's state for a class stays small).
#[derive(Clone, Copy)]
pub struct Slots {
    base: usize,
}

impl TypedDecoder<'_> {
    /// `n` empty slots on top of the stack.
    #[inline(always)]
    fn push_slots(&mut self, n: usize) -> Slots {
        let base = self.slots.len();
        self.slots.resize_with(base + n, || None);
        Slots { base }
    }

    #[inline(always)]
    fn fill_slot(&mut self, slots: Slots, i: usize, value: Owned) {
        if let Some(slot) = self.slots.get_mut(slots.base + i) {
            *slot = Some(value);
        }
    }

    /// Builds the class from its slots (the top of the stack, from `slots`), then drops them.
    #[inline(always)]
    fn pop_slots(
        &mut self,
        slots: Slots,
        build: impl FnOnce(&mut Self, &mut [Option<Owned>]) -> TResult<Owned>,
    ) -> TResult<Owned> {
        // Out of the decoder while Python code (a constructor, a default factory) runs with it.
        let mut stack = std::mem::take(&mut self.slots);
        let made = match stack.get_mut(slots.base..) {
            Some(values) => build(self, values),
            None => Err(DeError::input(Kind::Empty, self.r.pos).into()),
        };
        stack.truncate(slots.base);
        self.slots = stack;
        made
    }
}

/// What an array is read into.
// An explicit tag, tested for every item (cheaper than a niche in a field).
#[repr(u8)]
pub enum Seq {
    List(Owned),
    Tuple(Owned),
    /// A set (frozen or not), and where the item being read starts (for an unhashable one).
    Set(Owned, usize),
    /// A NamedTuple's fields.
    Named(Slots),
}

/// The nodes of an array's items.
#[derive(Clone, Copy)]
#[repr(u8)]
pub enum Items<'a> {
    /// The same for all (a list's, a set's).
    Same(usize),
    /// One an item (a tuple's).
    Each(&'a [usize]),
    /// A NamedTuple's fields'.
    Fields(&'a [Field]),
}

pub struct TArray<'a> {
    seq: Seq,
    /// The array's node.
    node: usize,
    items: Items<'a>,
    /// How deep its items are nested.
    depth: u32,
}

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
    Object(Owned),
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
    type Array = TArray<'a>;
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
    fn array_begin(&mut self, n: usize, depth: u32, start: usize) -> TResult<TArray<'a>> {
        let node = self.node;
        let nodes: &'a [super::plan::Named] = self.nodes;
        // SAFETY: attached; the walk fills each slot `i < n` of a new list or tuple once.
        let (seq, items) = unsafe {
            match &nodes[node].node {
                &Node::List(item) => (Seq::List(made(ffi::new_list(n))?), Items::Same(item)),
                &Node::VarTuple(item) => (Seq::Tuple(made(ffi::new_tuple(n))?), Items::Same(item)),
                Node::Tuple(items) => (Seq::Tuple(made(ffi::new_tuple(n))?), Items::Each(items)),
                &Node::Set(item) => (Seq::Set(ffi::new_set(false)?, start), Items::Same(item)),
                &Node::FrozenSet(item) => (Seq::Set(ffi::new_set(true)?, start), Items::Same(item)),
                Node::NamedTuple(class) => (
                    Seq::Named(self.push_slots(class.fields.len())),
                    Items::Fields(&class.fields),
                ),
                // Refused by `header` before the walk gets here.
                _ => return Err(self.mismatch(node, &Token::Array(n), start)),
            }
        };
        Ok(TArray {
            seq,
            node,
            items,
            depth: depth + 1,
        })
    }

    #[inline(always)]
    fn before_item(&mut self, array: &mut TArray<'a>, i: usize, at: usize) -> TResult<()> {
        // (`header` checked the length of a tuple's or NamedTuple's array.)
        self.node = match array.items {
            Items::Same(item) => item,
            Items::Each(items) => items.get(i).copied().unwrap_or(array.node),
            Items::Fields(fields) => fields.get(i).map_or(array.node, |f| f.node),
        };
        self.depth = array.depth;
        if let Seq::Set(_, item_start) = &mut array.seq {
            *item_start = at;
        }
        Ok(())
    }

    #[inline(always)]
    fn array_item(&mut self, array: &mut TArray<'a>, i: usize, item: Owned) -> TResult<()> {
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
                &mut Seq::Named(slots) => self.fill_slot(slots, i, item),
            }
        }
        Ok(())
    }

    #[cold]
    fn item_failed(&mut self, array: &TArray<'a>, i: usize, err: TError) -> TError {
        match self.class_of(array.node) {
            Some(class) if i < class.fields.len() => err.at(field_step(&class.fields[i])),
            _ => err.at(Step::Index(i)),
        }
    }

    #[inline(always)]
    fn array_end(&mut self, array: TArray<'a>, start: usize) -> TResult<Owned> {
        match array.seq {
            Seq::List(obj) | Seq::Tuple(obj) | Seq::Set(obj, _) => Ok(obj),
            Seq::Named(slots) => match self.class_of(array.node) {
                Some(class) => self.pop_slots(slots, |d, values| {
                    d.named_tuple(array.node, class, values, start)
                }),
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
                // SAFETY: attached (the walk holds `py`); the walk's `enter` checked that `n`
                // entries fit in the rest of the input before this call.
                dict: made(unsafe { ffi::new_dict(n) })?,
                key,
                value,
            })),
            Node::Dataclass(class) | Node::TypedDict(class) => Ok(Begin::Walk(TMap::Class {
                node,
                class,
                slots: self.push_slots(class.fields.len()),
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
                Ok(TKey::Object(key))
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
            // SAFETY: attached (the walk holds `py`); the key is held by `TKey` (`Owned`).
            (_, TKey::Object(key)) => err.at(Step::Key(unsafe { ffi::repr_string(key.as_ptr()) })),
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
            (TMap::Dict { dict, .. }, TKey::Object(key)) => {
                dict_entry(dict, &key, &value, key_start)?
            }
            (TMap::Class { slots, next, .. }, TKey::Field(i)) => {
                self.fill_slot(*slots, i, value);
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
                node, class, slots, ..
            } => self.pop_slots(slots, |d, values| {
                if matches!(d.nodes[node].node, Node::TypedDict(_)) {
                    d.typed_dict(node, class, values, start)
                } else {
                    d.dataclass(node, class, values, start)
                }
            }),
        }
    }
}
