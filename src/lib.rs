//! fastmsgpack: fast, correct MessagePack for Python.
//!
//! Layout, from the top down (doc/architecture.md walks it): [`api`] is the Python face, where
//! every function and class Python calls is defined and each call's arguments are read once
//! into a request; [`compat`] is msgpack-python's API over the engine, a leaf the engine never
//! names; the engine is [`ser`] (classify each object once, dispatch to per-type writers that
//! drive an [`emit::Emitter`]), [`de`] (MessagePack to Python objects, one read grammar), [`view`]
//! (lazy views) and [`snapshot`]; [`ffi`] is the only module that touches the raw CPython API;
//! [`opt`] holds the option bits, and the pure-Rust core (`core/`) the grammar both ways.

mod api;
mod compat;
mod de;
mod emit;
mod error;
mod exc;
mod ext;
mod ffi;
mod fragment;
mod opt;
mod registry;
mod ser;
mod snapshot;
mod stack;
mod view;
