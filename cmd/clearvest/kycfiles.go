package main

import (
	"clearvest/app/kyc"
	"clearvest/eventstore/pii"
	"clearvest/platform/blob"
	"clearvest/platform/blob/sealed"
)

// kycFiles is where identity documents are kept: sealed (encrypted per file, the file key
// wrapped by the user's personal-data key) in the configured blob store, local disk or S3.
func kycFiles(blobs blob.Store, cipher *pii.Cipher) kyc.Files {
	return kyc.SealedFiles(sealed.New(blobs, cipher))
}
