module github.com/retrieve-dev/retrieve/bench/mcpload

go 1.26.8
