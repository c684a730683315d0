//! Unit tests of the decoders and the analysis on hand-written code.
