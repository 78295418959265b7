//! The Python methods of the classes whose data the engine below uses (the class itself, its
//! fields and what the engine calls, stay where the engine reads them).

mod array_view;
mod compat_options;
mod ext;
mod fragment;
mod map_view;
mod registry;
mod type_plan;
mod view_doc;
