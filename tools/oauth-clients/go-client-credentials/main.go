// Obtains a service account's token with golang.org/x/oauth2/clientcredentials (Debian's
// golang-golang-x-oauth2-dev) from the token endpoint go-oidc discovers (oidc.NewProvider(ctx, issuer):
// provider.Endpoint().TokenURL), as a Go service would, then calls GET /v1/users with it. Once with the
// secret in an HTTP Basic header (AuthStyleInHeader: client_secret_basic), once in the form
// (AuthStyleInParams: client_secret_post, with a scope), once with a wrong secret.
//
// Usage: go-client-credentials <issuer> <client-id>, the secret on stdin (never on the command line, where
// `ps` shows it); prints one JSON line per attempt. Built by test/support/oauth-clients.ts with
// GOPATH=/usr/share/gocode GO111MODULE=off.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	oidc "github.com/coreos/go-oidc"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

type attempt struct {
	Style         string `json:"style"`
	TokenEndpoint string `json:"token_endpoint"`
	TokenType     string `json:"token_type,omitempty"`
	AccessToken   string `json:"access_token,omitempty"`
	Scope         string `json:"scope,omitempty"`
	Expires       bool   `json:"expires"`
	Users         int    `json:"users,omitempty"`
	Error         string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-client-credentials <issuer> <client-id>")
		os.Exit(2)
	}
	issuer, clientID := os.Args[1], os.Args[2]
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdin unreadable:", err)
		os.Exit(1)
	}
	secret := strings.TrimSpace(string(raw))
	ctx := context.Background()

	provider, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		fmt.Fprintln(os.Stderr, "discovery failed:", err)
		os.Exit(1)
	}
	tokenURL := provider.Endpoint().TokenURL

	out := json.NewEncoder(os.Stdout)
	run := func(style string, config clientcredentials.Config) {
		result := attempt{Style: style, TokenEndpoint: tokenURL}
		token, err := config.Token(ctx)
		if err != nil {
			result.Error = err.Error()
			_ = out.Encode(result)
			return
		}
		result.TokenType = token.TokenType
		result.AccessToken = token.AccessToken
		result.Expires = !token.Expiry.IsZero()
		if scope, ok := token.Extra("scope").(string); ok {
			result.Scope = scope
		}
		response, err := config.Client(ctx).Get(issuer + "/v1/users")
		if err != nil {
			result.Error = err.Error()
		} else {
			result.Users = response.StatusCode
			response.Body.Close()
		}
		_ = out.Encode(result)
	}
	run("header", clientcredentials.Config{ClientID: clientID, ClientSecret: secret, TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInHeader})
	run("params", clientcredentials.Config{ClientID: clientID, ClientSecret: secret, TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams, Scopes: []string{"users:read"}})
	run("wrong-secret", clientcredentials.Config{ClientID: clientID, ClientSecret: secret + "x", TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInHeader})
}
