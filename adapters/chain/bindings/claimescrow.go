// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package bindings

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// ClaimEscrowMetaData contains all meta data concerning the ClaimEscrow contract.
var ClaimEscrowMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"operator_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"settlement_\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"gracePeriodSeconds\",\"type\":\"uint64\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"}],\"name\":\"ClaimCanceled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"expiresAt\",\"type\":\"uint64\"}],\"name\":\"ClaimExpiryShortened\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"expiresAt\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"metadataHash\",\"type\":\"bytes32\"}],\"name\":\"ClaimFunded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"}],\"name\":\"ClaimLocked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"ClaimRefunded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"decisionHash\",\"type\":\"bytes32\"}],\"name\":\"ClaimReleased\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"}],\"name\":\"cancel\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"}],\"name\":\"claims\",\"outputs\":[{\"internalType\":\"enumClaimEscrow.State\",\"name\":\"state\",\"type\":\"uint8\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"expiresAt\",\"type\":\"uint64\"},{\"internalType\":\"bytes32\",\"name\":\"metadataHash\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"}],\"name\":\"expireNow\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"expiresAt\",\"type\":\"uint64\"},{\"internalType\":\"bytes32\",\"name\":\"metadataHash\",\"type\":\"bytes32\"}],\"name\":\"fund\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"gracePeriod\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"}],\"name\":\"lock\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"operator\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"}],\"name\":\"refund\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"claimId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"decisionHash\",\"type\":\"bytes32\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"settlement\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"token\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "ClaimEscrow",
}

// ClaimEscrow is an auto generated Go binding around an Ethereum contract.
type ClaimEscrow struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *ClaimEscrow) GetABI() abi.ABI {
	return c.abi
}

// NewClaimEscrow creates a new instance of ClaimEscrow.
func NewClaimEscrow() *ClaimEscrow {
	parsed, err := ClaimEscrowMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &ClaimEscrow{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *ClaimEscrow) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address token_, address operator_, address settlement_, uint64 gracePeriodSeconds) returns()
func (claimEscrow *ClaimEscrow) PackConstructor(token_ common.Address, operator_ common.Address, settlement_ common.Address, gracePeriodSeconds uint64) []byte {
	enc, err := claimEscrow.abi.Pack("", token_, operator_, settlement_, gracePeriodSeconds)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackCancel is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc4d252f5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function cancel(bytes32 claimId) returns()
func (claimEscrow *ClaimEscrow) PackCancel(claimId [32]byte) []byte {
	enc, err := claimEscrow.abi.Pack("cancel", claimId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCancel is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc4d252f5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function cancel(bytes32 claimId) returns()
func (claimEscrow *ClaimEscrow) TryPackCancel(claimId [32]byte) ([]byte, error) {
	return claimEscrow.abi.Pack("cancel", claimId)
}

// PackClaims is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xeff0f592.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function claims(bytes32 claimId) view returns(uint8 state, uint256 amount, uint64 expiresAt, bytes32 metadataHash)
func (claimEscrow *ClaimEscrow) PackClaims(claimId [32]byte) []byte {
	enc, err := claimEscrow.abi.Pack("claims", claimId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackClaims is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xeff0f592.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function claims(bytes32 claimId) view returns(uint8 state, uint256 amount, uint64 expiresAt, bytes32 metadataHash)
func (claimEscrow *ClaimEscrow) TryPackClaims(claimId [32]byte) ([]byte, error) {
	return claimEscrow.abi.Pack("claims", claimId)
}

// ClaimsOutput serves as a container for the return parameters of contract
// method Claims.
type ClaimsOutput struct {
	State        uint8
	Amount       *big.Int
	ExpiresAt    uint64
	MetadataHash [32]byte
}

// UnpackClaims is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xeff0f592.
//
// Solidity: function claims(bytes32 claimId) view returns(uint8 state, uint256 amount, uint64 expiresAt, bytes32 metadataHash)
func (claimEscrow *ClaimEscrow) UnpackClaims(data []byte) (ClaimsOutput, error) {
	out, err := claimEscrow.abi.Unpack("claims", data)
	outstruct := new(ClaimsOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.State = *abi.ConvertType(out[0], new(uint8)).(*uint8)
	outstruct.Amount = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	outstruct.ExpiresAt = *abi.ConvertType(out[2], new(uint64)).(*uint64)
	outstruct.MetadataHash = *abi.ConvertType(out[3], new([32]byte)).(*[32]byte)
	return *outstruct, nil
}

// PackExpireNow is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x71885c1a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function expireNow(bytes32 claimId) returns()
func (claimEscrow *ClaimEscrow) PackExpireNow(claimId [32]byte) []byte {
	enc, err := claimEscrow.abi.Pack("expireNow", claimId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExpireNow is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x71885c1a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function expireNow(bytes32 claimId) returns()
func (claimEscrow *ClaimEscrow) TryPackExpireNow(claimId [32]byte) ([]byte, error) {
	return claimEscrow.abi.Pack("expireNow", claimId)
}

// PackFund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x154c5fa1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function fund(bytes32 claimId, uint256 amount, uint64 expiresAt, bytes32 metadataHash) returns()
func (claimEscrow *ClaimEscrow) PackFund(claimId [32]byte, amount *big.Int, expiresAt uint64, metadataHash [32]byte) []byte {
	enc, err := claimEscrow.abi.Pack("fund", claimId, amount, expiresAt, metadataHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x154c5fa1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function fund(bytes32 claimId, uint256 amount, uint64 expiresAt, bytes32 metadataHash) returns()
func (claimEscrow *ClaimEscrow) TryPackFund(claimId [32]byte, amount *big.Int, expiresAt uint64, metadataHash [32]byte) ([]byte, error) {
	return claimEscrow.abi.Pack("fund", claimId, amount, expiresAt, metadataHash)
}

// PackGracePeriod is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa06db7dc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function gracePeriod() view returns(uint64)
func (claimEscrow *ClaimEscrow) PackGracePeriod() []byte {
	enc, err := claimEscrow.abi.Pack("gracePeriod")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGracePeriod is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa06db7dc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function gracePeriod() view returns(uint64)
func (claimEscrow *ClaimEscrow) TryPackGracePeriod() ([]byte, error) {
	return claimEscrow.abi.Pack("gracePeriod")
}

// UnpackGracePeriod is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa06db7dc.
//
// Solidity: function gracePeriod() view returns(uint64)
func (claimEscrow *ClaimEscrow) UnpackGracePeriod(data []byte) (uint64, error) {
	out, err := claimEscrow.abi.Unpack("gracePeriod", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackLock is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01670ba9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function lock(bytes32 claimId) returns()
func (claimEscrow *ClaimEscrow) PackLock(claimId [32]byte) []byte {
	enc, err := claimEscrow.abi.Pack("lock", claimId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLock is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01670ba9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function lock(bytes32 claimId) returns()
func (claimEscrow *ClaimEscrow) TryPackLock(claimId [32]byte) ([]byte, error) {
	return claimEscrow.abi.Pack("lock", claimId)
}

// PackOperator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x570ca735.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function operator() view returns(address)
func (claimEscrow *ClaimEscrow) PackOperator() []byte {
	enc, err := claimEscrow.abi.Pack("operator")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOperator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x570ca735.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function operator() view returns(address)
func (claimEscrow *ClaimEscrow) TryPackOperator() ([]byte, error) {
	return claimEscrow.abi.Pack("operator")
}

// UnpackOperator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (claimEscrow *ClaimEscrow) UnpackOperator(data []byte) (common.Address, error) {
	out, err := claimEscrow.abi.Unpack("operator", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7249fbb6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refund(bytes32 claimId) returns()
func (claimEscrow *ClaimEscrow) PackRefund(claimId [32]byte) []byte {
	enc, err := claimEscrow.abi.Pack("refund", claimId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7249fbb6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refund(bytes32 claimId) returns()
func (claimEscrow *ClaimEscrow) TryPackRefund(claimId [32]byte) ([]byte, error) {
	return claimEscrow.abi.Pack("refund", claimId)
}

// PackRelease is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8ca3eb2c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function release(bytes32 claimId, address to, bytes32 decisionHash) returns()
func (claimEscrow *ClaimEscrow) PackRelease(claimId [32]byte, to common.Address, decisionHash [32]byte) []byte {
	enc, err := claimEscrow.abi.Pack("release", claimId, to, decisionHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRelease is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8ca3eb2c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function release(bytes32 claimId, address to, bytes32 decisionHash) returns()
func (claimEscrow *ClaimEscrow) TryPackRelease(claimId [32]byte, to common.Address, decisionHash [32]byte) ([]byte, error) {
	return claimEscrow.abi.Pack("release", claimId, to, decisionHash)
}

// PackSettlement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x51160630.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settlement() view returns(address)
func (claimEscrow *ClaimEscrow) PackSettlement() []byte {
	enc, err := claimEscrow.abi.Pack("settlement")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettlement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x51160630.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settlement() view returns(address)
func (claimEscrow *ClaimEscrow) TryPackSettlement() ([]byte, error) {
	return claimEscrow.abi.Pack("settlement")
}

// UnpackSettlement is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x51160630.
//
// Solidity: function settlement() view returns(address)
func (claimEscrow *ClaimEscrow) UnpackSettlement(data []byte) (common.Address, error) {
	out, err := claimEscrow.abi.Unpack("settlement", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackToken is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfc0c546a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function token() view returns(address)
func (claimEscrow *ClaimEscrow) PackToken() []byte {
	enc, err := claimEscrow.abi.Pack("token")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackToken is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfc0c546a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function token() view returns(address)
func (claimEscrow *ClaimEscrow) TryPackToken() ([]byte, error) {
	return claimEscrow.abi.Pack("token")
}

// UnpackToken is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfc0c546a.
//
// Solidity: function token() view returns(address)
func (claimEscrow *ClaimEscrow) UnpackToken(data []byte) (common.Address, error) {
	out, err := claimEscrow.abi.Unpack("token", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// ClaimEscrowClaimCanceled represents a ClaimCanceled event raised by the ClaimEscrow contract.
type ClaimEscrowClaimCanceled struct {
	ClaimId [32]byte
	Raw     *types.Log // Blockchain specific contextual infos
}

const ClaimEscrowClaimCanceledEventName = "ClaimCanceled"

// ContractEventName returns the user-defined event name.
func (ClaimEscrowClaimCanceled) ContractEventName() string {
	return ClaimEscrowClaimCanceledEventName
}

// UnpackClaimCanceledEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ClaimCanceled(bytes32 indexed claimId)
func (claimEscrow *ClaimEscrow) UnpackClaimCanceledEvent(log *types.Log) (*ClaimEscrowClaimCanceled, error) {
	event := "ClaimCanceled"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != claimEscrow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ClaimEscrowClaimCanceled)
	if len(log.Data) > 0 {
		if err := claimEscrow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range claimEscrow.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ClaimEscrowClaimExpiryShortened represents a ClaimExpiryShortened event raised by the ClaimEscrow contract.
type ClaimEscrowClaimExpiryShortened struct {
	ClaimId   [32]byte
	ExpiresAt uint64
	Raw       *types.Log // Blockchain specific contextual infos
}

const ClaimEscrowClaimExpiryShortenedEventName = "ClaimExpiryShortened"

// ContractEventName returns the user-defined event name.
func (ClaimEscrowClaimExpiryShortened) ContractEventName() string {
	return ClaimEscrowClaimExpiryShortenedEventName
}

// UnpackClaimExpiryShortenedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ClaimExpiryShortened(bytes32 indexed claimId, uint64 expiresAt)
func (claimEscrow *ClaimEscrow) UnpackClaimExpiryShortenedEvent(log *types.Log) (*ClaimEscrowClaimExpiryShortened, error) {
	event := "ClaimExpiryShortened"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != claimEscrow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ClaimEscrowClaimExpiryShortened)
	if len(log.Data) > 0 {
		if err := claimEscrow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range claimEscrow.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ClaimEscrowClaimFunded represents a ClaimFunded event raised by the ClaimEscrow contract.
type ClaimEscrowClaimFunded struct {
	ClaimId      [32]byte
	Amount       *big.Int
	ExpiresAt    uint64
	MetadataHash [32]byte
	Raw          *types.Log // Blockchain specific contextual infos
}

const ClaimEscrowClaimFundedEventName = "ClaimFunded"

// ContractEventName returns the user-defined event name.
func (ClaimEscrowClaimFunded) ContractEventName() string {
	return ClaimEscrowClaimFundedEventName
}

// UnpackClaimFundedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ClaimFunded(bytes32 indexed claimId, uint256 amount, uint64 expiresAt, bytes32 metadataHash)
func (claimEscrow *ClaimEscrow) UnpackClaimFundedEvent(log *types.Log) (*ClaimEscrowClaimFunded, error) {
	event := "ClaimFunded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != claimEscrow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ClaimEscrowClaimFunded)
	if len(log.Data) > 0 {
		if err := claimEscrow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range claimEscrow.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ClaimEscrowClaimLocked represents a ClaimLocked event raised by the ClaimEscrow contract.
type ClaimEscrowClaimLocked struct {
	ClaimId [32]byte
	Raw     *types.Log // Blockchain specific contextual infos
}

const ClaimEscrowClaimLockedEventName = "ClaimLocked"

// ContractEventName returns the user-defined event name.
func (ClaimEscrowClaimLocked) ContractEventName() string {
	return ClaimEscrowClaimLockedEventName
}

// UnpackClaimLockedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ClaimLocked(bytes32 indexed claimId)
func (claimEscrow *ClaimEscrow) UnpackClaimLockedEvent(log *types.Log) (*ClaimEscrowClaimLocked, error) {
	event := "ClaimLocked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != claimEscrow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ClaimEscrowClaimLocked)
	if len(log.Data) > 0 {
		if err := claimEscrow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range claimEscrow.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ClaimEscrowClaimRefunded represents a ClaimRefunded event raised by the ClaimEscrow contract.
type ClaimEscrowClaimRefunded struct {
	ClaimId [32]byte
	To      common.Address
	Amount  *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const ClaimEscrowClaimRefundedEventName = "ClaimRefunded"

// ContractEventName returns the user-defined event name.
func (ClaimEscrowClaimRefunded) ContractEventName() string {
	return ClaimEscrowClaimRefundedEventName
}

// UnpackClaimRefundedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ClaimRefunded(bytes32 indexed claimId, address to, uint256 amount)
func (claimEscrow *ClaimEscrow) UnpackClaimRefundedEvent(log *types.Log) (*ClaimEscrowClaimRefunded, error) {
	event := "ClaimRefunded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != claimEscrow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ClaimEscrowClaimRefunded)
	if len(log.Data) > 0 {
		if err := claimEscrow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range claimEscrow.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ClaimEscrowClaimReleased represents a ClaimReleased event raised by the ClaimEscrow contract.
type ClaimEscrowClaimReleased struct {
	ClaimId      [32]byte
	To           common.Address
	Amount       *big.Int
	DecisionHash [32]byte
	Raw          *types.Log // Blockchain specific contextual infos
}

const ClaimEscrowClaimReleasedEventName = "ClaimReleased"

// ContractEventName returns the user-defined event name.
func (ClaimEscrowClaimReleased) ContractEventName() string {
	return ClaimEscrowClaimReleasedEventName
}

// UnpackClaimReleasedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ClaimReleased(bytes32 indexed claimId, address to, uint256 amount, bytes32 decisionHash)
func (claimEscrow *ClaimEscrow) UnpackClaimReleasedEvent(log *types.Log) (*ClaimEscrowClaimReleased, error) {
	event := "ClaimReleased"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != claimEscrow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ClaimEscrowClaimReleased)
	if len(log.Data) > 0 {
		if err := claimEscrow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range claimEscrow.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// abi-sha256: f48d6d7caa0d9243a2b6c4a3ecc1cbc0c31c3131266d5321a68d9d7b51334aa6 abigen: v1.17.10
