// Shared by the integration tests and the fuzz target.
pub mod walk;
