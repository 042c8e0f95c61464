package api

//go:generate go tool oapi-codegen -config cfg.yaml openapi.yaml
