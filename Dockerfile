# The retrieve container: one static binary, nothing else — no base image
# to pull. The binary comes from `make dist` (GoReleaser): built with cgo for
# the outlines' tree-sitter runtime and linked static (glibc with netgo and
# osusergo on amd64, musl through zig cc on arm64), so scratch runs it:
#
#   make dist
#   docker build --platform linux/amd64 -t retrieve .     # or linux/arm64
#   docker run --rm -p 8765:8765 -v "$PWD:/workspace" \
#     -e RETRIEVE_TOKEN="$(openssl rand -hex 32)" retrieve
#
# It serves MCP (streamable HTTP) at /mcp and the JSON API at /v1/ on port
# 8765, for the workspace mounted at /workspace. Off loopback retrieve needs
# RETRIEVE_TOKEN (docs/servers.md). See docs/install.md.
FROM scratch
ARG TARGETARCH=amd64
COPY dist/docker/linux_${TARGETARCH}/retrieve /retrieve
# An unprivileged user (the numeric id: a scratch image has no /etc/passwd).
USER 65532:65532
WORKDIR /workspace
VOLUME ["/workspace"]
EXPOSE 8765
ENTRYPOINT ["/retrieve", "--root", "/workspace"]
CMD ["serve", "--http", "0.0.0.0:8765"]
