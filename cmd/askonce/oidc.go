package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"net/url"
	"strings"

	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/web"
)

// oidcConfig is serve's OpenID Connect sign-in of the inbox
// (docs/deploy.md, "Signing in").
type oidcConfig struct {
	Issuer, ClientID, ClientSecret, Scopes string
}

func (o *oidcConfig) flags(s *cli.Settings) {
	s.String(&o.Issuer, "oidc-issuer", "", "OpenID provider whose accounts sign in to the inbox (its issuer URL); needs ASKONCE_OIDC_CLIENT_ID, ASKONCE_OIDC_CLIENT_SECRET and signin lines in --api-keys-file. The provider sends people back to <public-url>/ui/auth/callback. Empty: the inbox asks for an API key")
	s.String(&o.ClientID, "oidc-client-id", "", "this server's client id at --oidc-issuer; prefer the environment variable")
	s.String(&o.ClientSecret, "oidc-client-secret", "", "this server's client secret at --oidc-issuer; prefer the environment variable")
	s.String(&o.Scopes, "oidc-scopes", "", "comma-separated scopes asked for besides openid. Empty: email,profile, and groups when a signin line names a group")
}

// check refuses an issuer without what signing in needs.
func (o *oidcConfig) check(keysFile string) error {
	if o.Issuer == "" {
		return nil
	}
	u, err := url.Parse(o.Issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return cli.UsageError{Msg: fmt.Sprintf("--oidc-issuer %q: want the provider's issuer URL, https://host[/path]", o.Issuer)}
	}
	if o.ClientID == "" || o.ClientSecret == "" {
		return cli.UsageError{Msg: "--oidc-issuer needs ASKONCE_OIDC_CLIENT_ID and ASKONCE_OIDC_CLIENT_SECRET (or --oidc-client-id and --oidc-client-secret)"}
	}
	if keysFile == "" {
		return cli.UsageError{Msg: "--oidc-issuer needs --api-keys-file with '<tenant> signin email=|group=|domain=' lines: they say who may sign in and which tenant they see"}
	}
	return nil
}

// web returns the pages' sign-in, nil without an issuer. The cookies are
// signed with a key derived from the link secret, which every replica
// sharing the database shares.
func (o *oidcConfig) web(keys *auth.Keys, publicURL string, linkSecret []byte) (*web.OIDC, error) {
	if o.Issuer == "" {
		return nil, nil
	}
	if keys.SignInRules() == 0 {
		return nil, cli.UsageError{Msg: "--oidc-issuer: --api-keys-file has no '<tenant> signin email=|group=|domain=' lines, so nobody could sign in"}
	}
	m := hmac.New(sha256.New, linkSecret)
	m.Write([]byte("askonce oidc session"))
	cfg := &web.OIDC{
		Issuer: strings.TrimSuffix(o.Issuer, "/"), ClientID: o.ClientID, ClientSecret: o.ClientSecret,
		PublicURL: publicURL, SessionKey: m.Sum(nil),
	}
	if o.Scopes != "" {
		cfg.Scopes = []string{}
		for _, s := range strings.Split(o.Scopes, ",") {
			if s = strings.TrimSpace(s); s != "" && s != "openid" {
				cfg.Scopes = append(cfg.Scopes, s)
			}
		}
	}
	return cfg, nil
}

// checkSignIn logs whether the OpenID provider answers its discovery at
// start. The server serves either way: API keys do not need it, and the
// sign-in asks again.
func (sv *serving) checkSignIn(pages *web.Handler) {
	if err := pages.CheckSignIn(context.Background()); err != nil {
		sv.log.Error("sign-in: the OpenID provider did not answer its discovery; the inbox cannot sign anyone in until it does (API keys are not affected)", "issuer", sv.oidc.Issuer, "err", err)
		return
	}
	sv.log.Info("sign-in: OpenID provider found", "issuer", sv.oidc.Issuer)
}
