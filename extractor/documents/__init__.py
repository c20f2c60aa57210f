"""Long documents: the windows a text too long for one prompt is read in, and the merge of their objects.

`pipeline/windowed.py` drives both: where the first prompt and `max_tokens` do not fit the model's context (or the
text is longer than the `window` asked for), it cuts the text with `windows`, reads each under the window form
(`schema/window.py`: every member may be null, no list or object must hold anything), reads again in halves a
window whose answer `max_tokens` cut inside a list, merges the answers with `merge`, looks for required members
still missing in the likeliest windows, and validates the merged object as a whole.

`windows.py`: `windows(document, token_ends, size, overlap)` cuts the text in one pass, linear in its length.
Every break is found once with its strength (`BREAKS`, strongest first: a blank line or a heading, a line break, a
sentence's end, a clause's end, any whitespace); each window then ends at the strongest break in the second half
of what its token budget reaches, counted in the model's tokens by bisection over the tokenizer's offsets
(`token_ends`), so no window is less than half full and no word is cut (a stretch with no whitespace longer than a
window is cut between tokens). The next window starts about `overlap` tokens before the previous one ended, at a
break. A window starting inside a table of `|` or tab rows gets the table's header row repeated above it (unless
that would leave less than half the window for text), so its rows keep their columns' names;
`Window.offset` maps a position in the window's text back to the document.

`lexical.py` and `relevant.py` (with `focus`): each stretch of a long text scored by BM25 for the target schema's
words and value shapes, the text's own stretches the collection (no model pass), and the stretches near the best
joined into the regions read.

`located.py`: where each scalar member of the target is stated, its own words (its name counted twice) scored by
BM25 over short stretches of the text; the pipeline reads each member alone in its best stretches.

`merge.py`: `merge(schema, values, grounded)` walks the target's JSON Schema (local `$ref`s resolved) and the
windows' objects together. Objects merge member by member; lists are joined in window order, an item written
again (by the overlapping next window, or repeated) merged into the first: the same value, or an object agreeing
on every identifying member both wrote (its required scalar members, else all its scalar members). Values are
compared as one value exactly when they are: strings folded for case and spacing only (never a sign or a symbol
dropped, so `C`, `C++` and `C#` stay three), numbers by exact value. A scalar is taken from the first window
whose text holds it (`grounded`), else the first that wrote one, and every other value is kept as a `Conflict`.
A list item lacking a required member no window wrote is left out of the result and kept as `Incomplete`;
required members missing elsewhere are reported (`Merged.missing`). Each leaf's origin (window, pointer there) is
recorded, so the merged result's `Trace` carries spans moved into the document."""
