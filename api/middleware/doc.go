// Package middleware holds the HTTP middleware every Clearvest request passes through: request
// IDs, access logs, metrics, panic recovery, security headers, body limits, refusing text PostgreSQL cannot store, and read-your-writes.
//
// The order they are installed in matters and is decided once, in api.New; each middleware
// documents what it expects to run inside or outside of.
package middleware
