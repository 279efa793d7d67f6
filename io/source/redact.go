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
