package source

import "net/url"

// Redact returns name with the password of a URL's user information replaced
// by "xxxxx", for printing it or wrapping it in an error. A name that is not
// a URL with a password is returned unchanged.
func Redact(name string) string {
	if _, ok := Scheme(name); !ok {
		return name
	}
	u, err := url.Parse(name)
	if err != nil || u.User == nil {
		return name
	}
	if _, ok := u.User.Password(); !ok {
		return name
	}
	return u.Redacted()
}

// urlCause is the cause of a url.Parse error without the URL it quotes,
// which may hold a password.
func urlCause(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
