package ops

import "context"

// Progress receives how far a long call is: done of total (0 when not
// known), and what it is doing. A transport that can tell its client
// (MCP, when the call carries a progress token) puts one in the call's
// context with WithProgress; the others leave it out.
type Progress func(done, total int, message string)

type progressKey struct{}

// WithProgress returns ctx carrying p for the ops it runs.
func WithProgress(ctx context.Context, p Progress) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressOf returns the progress callback of the call in ctx, labelled
// what, in the form the long operations take (graph.VerifyOptions,
// graph.ForgetInput, memory.ForgetInput); nil when the transport reports
// none, so the operation skips it.
func ProgressOf(ctx context.Context, what string) func(done, total int) {
	p, ok := ctx.Value(progressKey{}).(Progress)
	if !ok {
		return nil
	}
	return func(done, total int) { p(done, total, what) }
}
