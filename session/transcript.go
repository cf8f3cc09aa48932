package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/workspace"
)

// transcriptLine is the part of a Claude Code transcript line (JSON Lines)
// this package reads: {"type": "assistant"|"user"|…, "message": {"role",
// "content": "text" | [{"type": "text", "text": …}, {"type": "tool_use"…}]}}.
type transcriptLine struct {
	Type    string `json:"type"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// maxTranscriptLine caps one transcript line.
const maxTranscriptLine = 64 << 20

// LastAssistantText returns the text of the agent's last message in a
// Claude Code transcript: the text blocks of the assistant lines after the
// last user line (a prompt or a tool result). A line cut short (the host
// still writing) or not JSON is skipped.
func LastAssistantText(path string) (string, error) {
	f, _, err := workspace.OpenRegular(path, false)
	if err != nil {
		return "", retrieve.Errorf(retrieve.CodePathNotFound, "cannot read the transcript %s", path).WithErr(err).
			WithHint("Claude Code passes transcript_path on every hook event; the file may not exist yet")
	}
	defer f.Close()
	return lastAssistantText(f)
}

func lastAssistantText(r io.Reader) (string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var texts []string
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			var tl transcriptLine
			if json.Unmarshal(line, &tl) == nil {
				switch tl.Type {
				case "user":
					texts = texts[:0]
				case "assistant":
					texts = append(texts, contentText(tl.Message.Content)...)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", retrieve.Errorf(retrieve.CodeParseFailed, "the transcript cannot be read").WithErr(err)
		}
	}
	if len(texts) == 0 {
		return "", retrieve.Errorf(retrieve.CodeNotFound, "the transcript has no assistant message after the last user message").
			WithHint("the turn may still be being written")
	}
	return strings.Join(texts, "\n\n"), nil
}

// readLine reads one line; a line longer than maxTranscriptLine is
// skipped whole.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxTranscriptLine {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, err
		}
		return buf, err
	}
}

func contentText(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		return []string{s}
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			out = append(out, b.Text)
		}
	}
	return out
}
