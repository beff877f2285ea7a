"""A toolkit-shaped CANN prefix built from the open sources, so ops-nn's own `build.sh -u` runs without a
toolkit (issue 20, item 1). This first step holds the cache key and the source check; the builds follow."""
