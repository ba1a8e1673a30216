// Verifies access tokens with go-oidc (github.com/coreos/go-oidc, Debian's golang-github-coreos-go-oidc-dev,
// 2.1) given only the issuer URL and the audience, as a Go service would: oidc.NewProvider(ctx, issuer)
// reads /.well-known/openid-configuration, and the verifier's ClientID is the audience.
//
// go-oidc 2 accepts only RS256 unless told otherwise; go-oidc 3 takes the algorithms from the discovery
// document's id_token_signing_alg_values_supported by itself. This program does what 3 does (verifier
// "go-oidc"), and shows what 2 does with nothing set (verifier "go-oidc-default").
//
// Usage: go-oidc-verify <issuer> <audience>, with "label<TAB>token" lines on stdin; prints one JSON line
// per token and verifier. Built by test/support/oauth-clients.ts with GOPATH=/usr/share/gocode GO111MODULE=off.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	oidc "github.com/coreos/go-oidc"
)

type verdict struct {
	Verifier string `json:"verifier"`
	Token    string `json:"token"`
	Accepted bool   `json:"accepted"`
	Subject  string `json:"subject,omitempty"`
	Error    string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-oidc-verify <issuer> <audience>")
		os.Exit(2)
	}
	issuer, audience := os.Args[1], os.Args[2]
	ctx := context.Background()

	provider, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		fmt.Fprintln(os.Stderr, "discovery failed:", err)
		os.Exit(1)
	}
	var metadata struct {
		Algorithms []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := provider.Claims(&metadata); err != nil {
		fmt.Fprintln(os.Stderr, "discovery document unreadable:", err)
		os.Exit(1)
	}
	verifiers := map[string]*oidc.IDTokenVerifier{
		"go-oidc":         provider.Verifier(&oidc.Config{ClientID: audience, SupportedSigningAlgs: metadata.Algorithms}),
		"go-oidc-default": provider.Verifier(&oidc.Config{ClientID: audience}),
	}

	out := json.NewEncoder(os.Stdout)
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		parts := strings.SplitN(lines.Text(), "\t", 2)
		if len(parts) != 2 {
			continue
		}
		for _, name := range []string{"go-oidc", "go-oidc-default"} {
			v := verdict{Verifier: name, Token: parts[0]}
			if token, err := verifiers[name].Verify(ctx, parts[1]); err != nil {
				v.Error = err.Error()
			} else {
				v.Accepted, v.Subject = true, token.Subject
			}
			_ = out.Encode(v)
		}
	}
}
