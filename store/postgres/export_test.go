package postgres

// FTSToTSQuery exposes ftsToTSQuery to the tests.
var FTSToTSQuery = ftsToTSQuery
var OrQuery = orQuery
