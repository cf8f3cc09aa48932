package postgres

// TSQueryLiteral exposes tsqueryLiteral to the tests.
var TSQueryLiteral = tsqueryLiteral
var OrQuery = orQuery
