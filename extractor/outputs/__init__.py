"""Stage 7: what a run writes to disk, shared by the command line and corpus jobs: files never written over an
input nor left half-written, JSON only finite, and the record fields that say what a long text's result lacks."""
