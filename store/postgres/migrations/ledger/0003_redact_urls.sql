-- Secrets never at rest (docs/SECURITY.md): ledger rows recorded before
-- URLs were redacted lose the userinfo and token-like query parameters of
-- every URL in their target, reference, request and result (retrieved.data,
-- the source's content, is kept). The rows are rewritten in Go after this
-- statement (redactLedgerURLs in store/postgres/db.go), in the same
-- transaction.
SELECT 1;
