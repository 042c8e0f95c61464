package api

import (
	"context"

	"clearvest/api/apigen"
	"clearvest/domain/domainerr"
)

// errKYCUnavailable answers the KYC operations until the kyc service is wired in.
var errKYCUnavailable = domainerr.New(domainerr.RuleBroken, "Identity checks are not available yet.")

func (s *server) UploadKycDocuments(context.Context, apigen.UploadKycDocumentsRequestObject) (apigen.UploadKycDocumentsResponseObject, error) {
	return nil, errKYCUnavailable
}

func (s *server) GetMyKyc(context.Context, apigen.GetMyKycRequestObject) (apigen.GetMyKycResponseObject, error) {
	return nil, errKYCUnavailable
}

func (s *server) GetPendingKyc(context.Context, apigen.GetPendingKycRequestObject) (apigen.GetPendingKycResponseObject, error) {
	return nil, errKYCUnavailable
}

func (s *server) GetKycCase(context.Context, apigen.GetKycCaseRequestObject) (apigen.GetKycCaseResponseObject, error) {
	return nil, errKYCUnavailable
}

func (s *server) GetKycDocument(context.Context, apigen.GetKycDocumentRequestObject) (apigen.GetKycDocumentResponseObject, error) {
	return nil, errKYCUnavailable
}

func (s *server) ApproveKyc(context.Context, apigen.ApproveKycRequestObject) (apigen.ApproveKycResponseObject, error) {
	return nil, errKYCUnavailable
}

func (s *server) RejectKyc(context.Context, apigen.RejectKycRequestObject) (apigen.RejectKycResponseObject, error) {
	return nil, errKYCUnavailable
}

func (s *server) GetInvestEligibility(context.Context, apigen.GetInvestEligibilityRequestObject) (apigen.GetInvestEligibilityResponseObject, error) {
	return nil, errKYCUnavailable
}
