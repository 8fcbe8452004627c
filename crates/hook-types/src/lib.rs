//! The closed vocabularies of the hook engine.
