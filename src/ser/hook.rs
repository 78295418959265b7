//! What a caller above the engine changes in how objects are classified and packed, given with
//! the call's context ([`crate::ser::Ctx::hook`]) rather than set anywhere below: the engine
//! knows the rules, not who asks for them.
//!
//! With a hook, packing follows another library's rules where they differ from `packb`'s:
//! sets, frozensets and `Decimal`s go to `default` (never to their own writers), the class
//! [`crate::ser::Ctx::ext_tuple`] names (exactly that class) is written as an extension value
//! when it holds an `int` code and `bytes` data, what `default` raises passes up unchanged, and
//! containers nest as deep as [`Hook::max_depth`] says.

use crate::ffi::{self, Ref, TypePtr};

/// The hook of one call (see the module's documentation).
pub struct Hook<'a> {
    /// The last `default` of a chain: `default` (the caller's own conversion) ends by calling
    /// this one, which is called directly where the conversion would hand the object over
    /// unchanged ([`crate::ser::per_type::default`] says which).
    pub user_default: Option<Ref<'a>>,
    /// A class that the conversion converts itself: its instances never go straight to
    /// `user_default` (null: none).
    pub converted: TypePtr,
    /// How many containers may be open at once.
    pub max_depth: u64,
}

impl<'a> Hook<'a> {
    /// `user_default`, when the conversion would hand `obj` to it unchanged: `obj`'s type is
    /// not [`Hook::converted`] nor a subclass of `int`, `str`, `float` or `tuple` (the caller
    /// leaves out `user_default` where its conversion does more); else `None`, and `default`
    /// is called.
    #[inline(always)]
    pub fn callee(&self, obj: Ref<'_>) -> Option<Ref<'a>> {
        let user = self.user_default?;
        let ty = obj.type_of();
        // SAFETY: `ty` is the live type of a live object.
        let converts_nothing = unsafe {
            !ffi::has_flag(
                ty,
                ffi::Py_TPFLAGS_LONG_SUBCLASS
                    | ffi::Py_TPFLAGS_UNICODE_SUBCLASS
                    | ffi::Py_TPFLAGS_TUPLE_SUBCLASS,
            ) && !ffi::is_subtype(ty, ffi::float_type())
                && ty != self.converted
        };
        converts_nothing.then_some(user)
    }
}
