package postgres

// TSQueryLiteral exposes tsqueryLiteral to the tests.
var TSQueryLiteral = tsqueryLiteral
var OrQuery = orQuery

// AppendStmt exposes the statement Append uses.
func (db *DB) AppendStmt() string { return db.appendStmt() }
