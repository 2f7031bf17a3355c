//! Schema validation of a loaded intent (skeleton: to be completed by its owner).
