//! The one walk over MessagePack tokens, shared by the readers that turn an input into
//! something else: the decoder (`unpackb`, with its exact and registry extensions), the typed
//! decoder (`unpackb(data, type=T)`), the transcoder to JSON (`json.from_msgpack`) and the
//! decoders above the engine that bring a [`Policy`] of their own (msgpack-python's options).
//!
//! The walk reads each token with the one grammar ([`token::next`]), checks each container's
//! header before anything is made for it (its depth, and that its declared items can fit in
//! what is left of the input), and goes through the items; what is done with a scalar, a
//! container's start, each item or entry, and a container's end is the [`Policy`]'s. The walk is
//! generic over the policy and monomorphised for each, so that every hook is a direct call
//! inlined into the loop, never a call through a table.

use super::error::{DeError, InputError};
use super::reader::{DeResult, Reader};
use super::token::{self, Token};
use crate::ffi::{self, Owned};

/// Turns a null result of a C-API constructor into the pending Python error: the one check
/// every policy that builds objects makes after each constructor.
#[inline(always)]
pub fn made(obj: Option<Owned>) -> DeResult<Owned> {
    obj.ok_or_else(|| DeError::python(ffi::fetch_error()))
}

/// What a policy does at a container's start: walk its items into this state, or (a container
/// it reads in a layout of its own, such as a numpy array's map) hand over the finished value.
pub enum Begin<S, V> {
    Walk(S),
    Done(V),
}

/// What a reader does with what the walk finds. Each hook runs with the policy's reader at the
/// position after what it is handed (a container's items follow its start in the input).
pub trait Policy<'a>: Sized {
    /// What each item becomes (an object, or nothing for a reader that writes as it goes).
    type Value;
    type Error: From<InputError>;
    /// What an array is built in while its items are walked.
    type Array;
    /// What a map is built in while its entries are walked.
    type Map;
    /// A map key, as [`Policy::key`] reads it.
    type Key;

    fn reader(&mut self) -> &mut Reader<'a>;

    fn reader_ref(&self) -> &Reader<'a>;

    /// A check on each token as it is read (a length limit), before anything is made for it.
    #[inline(always)]
    fn token(&self, _token: &Token<'a>) -> Result<(), Self::Error> {
        Ok(())
    }

    /// A check of the policy's own on a container nested `depth` deep, made before the walk's.
    #[inline(always)]
    fn enter(&self, _depth: u32, _start: usize) -> Result<(), Self::Error> {
        Ok(())
    }

    /// A check of the policy's own on a container's header (an array or map `token` that began
    /// at `start`), made before the walk's checks and before anything is made for it.
    #[inline(always)]
    fn header(&self, _token: &Token<'a>, _start: usize) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Any token but an array or a map, the item that began at `start`.
    fn scalar(
        &mut self,
        token: Token<'a>,
        depth: u32,
        start: usize,
    ) -> Result<Self::Value, Self::Error>;

    /// An array item read without the dispatch on its token, when the policy has a shortcut for
    /// the item at the reader's position (nil and booleans, floats).
    #[inline(always)]
    fn quick_item(&mut self) -> Option<Result<Self::Value, Self::Error>> {
        None
    }

    /// [`Policy::quick_item`] for a map's value.
    #[inline(always)]
    fn quick_value(&mut self) -> Option<Result<Self::Value, Self::Error>> {
        None
    }

    /// An array of `n` items, nested `depth` deep, that began at `start`; its header is checked.
    fn array_begin(
        &mut self,
        n: usize,
        depth: u32,
        start: usize,
    ) -> Result<Self::Array, Self::Error>;

    /// Before item `i`, which starts at `at`, is walked.
    #[inline(always)]
    fn before_item(
        &mut self,
        _array: &mut Self::Array,
        _i: usize,
        _at: usize,
    ) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Item `i`, walked.
    fn array_item(
        &mut self,
        array: &mut Self::Array,
        i: usize,
        item: Self::Value,
    ) -> Result<(), Self::Error>;

    /// What item `i` failed with, as it leaves the array (a reader that names where in the
    /// input a value failed adds the item's place here).
    #[inline(always)]
    fn item_failed(&mut self, _array: &Self::Array, _i: usize, err: Self::Error) -> Self::Error {
        err
    }

    /// After the last item.
    fn array_end(&mut self, array: Self::Array, start: usize) -> Result<Self::Value, Self::Error>;

    /// A map of `n` entries, nested `depth` deep, that began at `start`; its header is checked.
    fn map_begin(
        &mut self,
        n: usize,
        depth: u32,
        start: usize,
    ) -> Result<Begin<Self::Map, Self::Value>, Self::Error>;

    /// Reads the key of entry `i` of a map nested `depth` deep (keys have a grammar of their
    /// own: a str, or what the policy allows besides).
    fn key(&mut self, map: &mut Self::Map, i: usize, depth: u32) -> Result<Self::Key, Self::Error>;

    /// Whether the policy skipped the value of the entry whose key it just read (a key the
    /// reader has no use for); the walk then goes on to the next entry.
    #[inline(always)]
    fn skip_value(
        &mut self,
        _map: &mut Self::Map,
        _key: &Self::Key,
        _depth: u32,
    ) -> Result<bool, Self::Error> {
        Ok(false)
    }

    /// What the value of the entry with `key` failed with, as it leaves the map.
    #[inline(always)]
    fn value_failed(
        &mut self,
        _map: &Self::Map,
        _key: &Self::Key,
        err: Self::Error,
    ) -> Self::Error {
        err
    }

    /// Entry `i`: its key, which began at `key_start`, and its value, at `value_start`.
    fn map_entry(
        &mut self,
        map: &mut Self::Map,
        key: Self::Key,
        value: Self::Value,
        key_start: usize,
        value_start: usize,
    ) -> Result<(), Self::Error>;

    /// After the last entry.
    fn map_end(&mut self, map: Self::Map, start: usize) -> Result<Self::Value, Self::Error>;
}

/// The item at the reader's position, nested `depth` containers deep.
#[inline(always)]
pub fn value<'a, P: Policy<'a>>(p: &mut P, depth: u32) -> Result<P::Value, P::Error> {
    let r = p.reader();
    let start = r.pos;
    let token = token::next(r, "value")?;
    p.token(&token)?;
    build(p, token, depth, start)
}

/// The item `token`, which began at `start`, its items (if it is a container) read next.
#[inline(always)]
pub fn build<'a, P: Policy<'a>>(
    p: &mut P,
    token: Token<'a>,
    depth: u32,
    start: usize,
) -> Result<P::Value, P::Error> {
    match token {
        // Containers recurse: on a stack with room for it (crate::stack).
        Token::Map(n) => {
            p.header(&token, start)?;
            let check = crate::stack::checks(depth);
            crate::stack::deeper(check, || map(p, n, depth, start))
        }
        Token::Array(n) => {
            p.header(&token, start)?;
            let check = crate::stack::checks(depth);
            crate::stack::deeper(check, || array(p, n, depth, start))
        }
        token => p.scalar(token, depth, start),
    }
}

/// The checks on a container's header, made before anything is made for it: the policy's own,
/// then the depth and that its `n` items of at least `min_size` bytes each can fit in the rest
/// of the input (so that no length header sizes an allocation beyond the input).
#[inline(always)]
fn enter<'a, P: Policy<'a>>(
    p: &P,
    n: usize,
    min_size: usize,
    what: &'static str,
    depth: u32,
    start: usize,
) -> Result<(), P::Error> {
    p.enter(depth, start)?;
    Ok(p.reader_ref().container(n, min_size, what, depth, start)?)
}

fn array<'a, P: Policy<'a>>(
    p: &mut P,
    n: usize,
    depth: u32,
    start: usize,
) -> Result<P::Value, P::Error> {
    enter(p, n, 1, "array", depth, start)?;
    let mut array = p.array_begin(n, depth, start)?;
    for i in 0..n {
        let at = p.reader_ref().pos;
        p.before_item(&mut array, i, at)?;
        // Each way of reading the item stores it itself: merged into one result first, every
        // item paid for a test of which way it came (3 instructions an item).
        match p.quick_item() {
            Some(Ok(item)) => p.array_item(&mut array, i, item)?,
            Some(Err(err)) => return Err(p.item_failed(&array, i, err)),
            None => match value(p, depth + 1) {
                Ok(item) => p.array_item(&mut array, i, item)?,
                Err(err) => return Err(p.item_failed(&array, i, err)),
            },
        }
    }
    p.array_end(array, start)
}

fn map<'a, P: Policy<'a>>(
    p: &mut P,
    n: usize,
    depth: u32,
    start: usize,
) -> Result<P::Value, P::Error> {
    enter(p, n, 2, "map", depth, start)?;
    let mut map = match p.map_begin(n, depth, start)? {
        Begin::Walk(map) => map,
        Begin::Done(value) => return Ok(value),
    };
    for i in 0..n {
        let key_start = p.reader_ref().pos;
        let key = p.key(&mut map, i, depth)?;
        if p.skip_value(&mut map, &key, depth)? {
            continue;
        }
        let value_start = p.reader_ref().pos;
        match p.quick_value() {
            Some(Ok(value)) => p.map_entry(&mut map, key, value, key_start, value_start)?,
            Some(Err(err)) => return Err(p.value_failed(&map, &key, err)),
            None => match value(p, depth + 1) {
                Ok(value) => p.map_entry(&mut map, key, value, key_start, value_start)?,
                Err(err) => return Err(p.value_failed(&map, &key, err)),
            },
        }
    }
    p.map_end(map, start)
}
