// Explicit directional embeddings, overrides and isolates (LRE, RLE, PDF, LRO, RLO: U+202A-U+202E;
// LRI, RLI, FSI, PDI: U+2066-U+2069). They make stored characters read in another order ("Trojan
// Source"): "DE89 \u202E0004 3210\u202C 0130 0000" printed as "DE89 0000 01300004 3210". A report is
// evidence, so the renderer removes them from every string before bidi analysis (a paragraph's
// direction comes from its own letters), and settings text refuses them. A module of its own: the
// settings' validation needs the pattern without loading the text stage.

/** One or more explicit bidi controls (global: for replace and counting). */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** The same, tested once (not global: no lastIndex to carry). */
export const HAS_BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

/** The message of a settings field that holds one. */
export const BIDI_CONTROL_MESSAGE = "must not contain bidirectional embedding, override or isolate controls (U+202A-U+202E, U+2066-U+2069)";
