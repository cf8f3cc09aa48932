-- Issue 31.5: complete lists, and queries of any of several words from
-- them (docs/memory.md "Top k without scoring every match";
-- memoryimpact.go). longer says whether a lexeme longer than the list's
-- term, starting with it, may be indexed in the folder (a prefix search
-- must rank those notes too): found at the list's build, set by the writes
-- that index one, cleared only by a build. Lists made before keep true
-- (unknown).
ALTER TABLE memory_impact_terms ADD COLUMN longer boolean NOT NULL DEFAULT true;
