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

// SafeL2MetaData contains all meta data concerning the SafeL2 contract.
var SafeL2MetaData = bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"AddedOwner\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"approvedHash\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ApproveHash\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"handler\",\"type\":\"address\"}],\"name\":\"ChangedFallbackHandler\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"guard\",\"type\":\"address\"}],\"name\":\"ChangedGuard\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"threshold\",\"type\":\"uint256\"}],\"name\":\"ChangedThreshold\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"module\",\"type\":\"address\"}],\"name\":\"DisabledModule\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"module\",\"type\":\"address\"}],\"name\":\"EnabledModule\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"txHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"payment\",\"type\":\"uint256\"}],\"name\":\"ExecutionFailure\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"module\",\"type\":\"address\"}],\"name\":\"ExecutionFromModuleFailure\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"module\",\"type\":\"address\"}],\"name\":\"ExecutionFromModuleSuccess\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"txHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"payment\",\"type\":\"uint256\"}],\"name\":\"ExecutionSuccess\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"RemovedOwner\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"module\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"enumEnum.Operation\",\"name\":\"operation\",\"type\":\"uint8\"}],\"name\":\"SafeModuleTransaction\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"enumEnum.Operation\",\"name\":\"operation\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"safeTxGas\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"baseGas\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"gasPrice\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"gasToken\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"addresspayable\",\"name\":\"refundReceiver\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"signatures\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"additionalInfo\",\"type\":\"bytes\"}],\"name\":\"SafeMultiSigTransaction\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"SafeReceived\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"initiator\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address[]\",\"name\":\"owners\",\"type\":\"address[]\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"threshold\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"initializer\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"fallbackHandler\",\"type\":\"address\"}],\"name\":\"SafeSetup\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"msgHash\",\"type\":\"bytes32\"}],\"name\":\"SignMsg\",\"type\":\"event\"},{\"stateMutability\":\"nonpayable\",\"type\":\"fallback\"},{\"inputs\":[],\"name\":\"VERSION\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"_threshold\",\"type\":\"uint256\"}],\"name\":\"addOwnerWithThreshold\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"hashToApprove\",\"type\":\"bytes32\"}],\"name\":\"approveHash\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"approvedHashes\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"_threshold\",\"type\":\"uint256\"}],\"name\":\"changeThreshold\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"dataHash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signatures\",\"type\":\"bytes\"},{\"internalType\":\"uint256\",\"name\":\"requiredSignatures\",\"type\":\"uint256\"}],\"name\":\"checkNSignatures\",\"outputs\":[],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"dataHash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signatures\",\"type\":\"bytes\"}],\"name\":\"checkSignatures\",\"outputs\":[],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"prevModule\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"module\",\"type\":\"address\"}],\"name\":\"disableModule\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"domainSeparator\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"module\",\"type\":\"address\"}],\"name\":\"enableModule\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"enumEnum.Operation\",\"name\":\"operation\",\"type\":\"uint8\"},{\"internalType\":\"uint256\",\"name\":\"safeTxGas\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"baseGas\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"gasPrice\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"gasToken\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"refundReceiver\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"_nonce\",\"type\":\"uint256\"}],\"name\":\"encodeTransactionData\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"enumEnum.Operation\",\"name\":\"operation\",\"type\":\"uint8\"},{\"internalType\":\"uint256\",\"name\":\"safeTxGas\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"baseGas\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"gasPrice\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"gasToken\",\"type\":\"address\"},{\"internalType\":\"addresspayable\",\"name\":\"refundReceiver\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"signatures\",\"type\":\"bytes\"}],\"name\":\"execTransaction\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"enumEnum.Operation\",\"name\":\"operation\",\"type\":\"uint8\"}],\"name\":\"execTransactionFromModule\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"enumEnum.Operation\",\"name\":\"operation\",\"type\":\"uint8\"}],\"name\":\"execTransactionFromModuleReturnData\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"returnData\",\"type\":\"bytes\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getChainId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"start\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"pageSize\",\"type\":\"uint256\"}],\"name\":\"getModulesPaginated\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"array\",\"type\":\"address[]\"},{\"internalType\":\"address\",\"name\":\"next\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getOwners\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"offset\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"length\",\"type\":\"uint256\"}],\"name\":\"getStorageAt\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getThreshold\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"enumEnum.Operation\",\"name\":\"operation\",\"type\":\"uint8\"},{\"internalType\":\"uint256\",\"name\":\"safeTxGas\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"baseGas\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"gasPrice\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"gasToken\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"refundReceiver\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"_nonce\",\"type\":\"uint256\"}],\"name\":\"getTransactionHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"module\",\"type\":\"address\"}],\"name\":\"isModuleEnabled\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"isOwner\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"nonce\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"prevOwner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"_threshold\",\"type\":\"uint256\"}],\"name\":\"removeOwner\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"handler\",\"type\":\"address\"}],\"name\":\"setFallbackHandler\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"guard\",\"type\":\"address\"}],\"name\":\"setGuard\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"_owners\",\"type\":\"address[]\"},{\"internalType\":\"uint256\",\"name\":\"_threshold\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"address\",\"name\":\"fallbackHandler\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"paymentToken\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"payment\",\"type\":\"uint256\"},{\"internalType\":\"addresspayable\",\"name\":\"paymentReceiver\",\"type\":\"address\"}],\"name\":\"setup\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"signedMessages\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"targetContract\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"calldataPayload\",\"type\":\"bytes\"}],\"name\":\"simulateAndRevert\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"prevOwner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"oldOwner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"swapOwner\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	ID:  "SafeL2",
}

// SafeL2 is an auto generated Go binding around an Ethereum contract.
type SafeL2 struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *SafeL2) GetABI() abi.ABI {
	return c.abi
}

// NewSafeL2 creates a new instance of SafeL2.
func NewSafeL2() *SafeL2 {
	parsed, err := SafeL2MetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &SafeL2{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *SafeL2) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackVERSION is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xffa1ad74.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function VERSION() view returns(string)
func (safeL2 *SafeL2) PackVERSION() []byte {
	enc, err := safeL2.abi.Pack("VERSION")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVERSION is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xffa1ad74.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function VERSION() view returns(string)
func (safeL2 *SafeL2) TryPackVERSION() ([]byte, error) {
	return safeL2.abi.Pack("VERSION")
}

// UnpackVERSION is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xffa1ad74.
//
// Solidity: function VERSION() view returns(string)
func (safeL2 *SafeL2) UnpackVERSION(data []byte) (string, error) {
	out, err := safeL2.abi.Unpack("VERSION", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackAddOwnerWithThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0d582f13.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function addOwnerWithThreshold(address owner, uint256 _threshold) returns()
func (safeL2 *SafeL2) PackAddOwnerWithThreshold(owner common.Address, threshold *big.Int) []byte {
	enc, err := safeL2.abi.Pack("addOwnerWithThreshold", owner, threshold)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAddOwnerWithThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0d582f13.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function addOwnerWithThreshold(address owner, uint256 _threshold) returns()
func (safeL2 *SafeL2) TryPackAddOwnerWithThreshold(owner common.Address, threshold *big.Int) ([]byte, error) {
	return safeL2.abi.Pack("addOwnerWithThreshold", owner, threshold)
}

// PackApproveHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd4d9bdcd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approveHash(bytes32 hashToApprove) returns()
func (safeL2 *SafeL2) PackApproveHash(hashToApprove [32]byte) []byte {
	enc, err := safeL2.abi.Pack("approveHash", hashToApprove)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApproveHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd4d9bdcd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approveHash(bytes32 hashToApprove) returns()
func (safeL2 *SafeL2) TryPackApproveHash(hashToApprove [32]byte) ([]byte, error) {
	return safeL2.abi.Pack("approveHash", hashToApprove)
}

// PackApprovedHashes is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7d832974.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approvedHashes(address , bytes32 ) view returns(uint256)
func (safeL2 *SafeL2) PackApprovedHashes(arg0 common.Address, arg1 [32]byte) []byte {
	enc, err := safeL2.abi.Pack("approvedHashes", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprovedHashes is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7d832974.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approvedHashes(address , bytes32 ) view returns(uint256)
func (safeL2 *SafeL2) TryPackApprovedHashes(arg0 common.Address, arg1 [32]byte) ([]byte, error) {
	return safeL2.abi.Pack("approvedHashes", arg0, arg1)
}

// UnpackApprovedHashes is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7d832974.
//
// Solidity: function approvedHashes(address , bytes32 ) view returns(uint256)
func (safeL2 *SafeL2) UnpackApprovedHashes(data []byte) (*big.Int, error) {
	out, err := safeL2.abi.Unpack("approvedHashes", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackChangeThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x694e80c3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function changeThreshold(uint256 _threshold) returns()
func (safeL2 *SafeL2) PackChangeThreshold(threshold *big.Int) []byte {
	enc, err := safeL2.abi.Pack("changeThreshold", threshold)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackChangeThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x694e80c3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function changeThreshold(uint256 _threshold) returns()
func (safeL2 *SafeL2) TryPackChangeThreshold(threshold *big.Int) ([]byte, error) {
	return safeL2.abi.Pack("changeThreshold", threshold)
}

// PackCheckNSignatures is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x12fb68e0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function checkNSignatures(bytes32 dataHash, bytes data, bytes signatures, uint256 requiredSignatures) view returns()
func (safeL2 *SafeL2) PackCheckNSignatures(dataHash [32]byte, data []byte, signatures []byte, requiredSignatures *big.Int) []byte {
	enc, err := safeL2.abi.Pack("checkNSignatures", dataHash, data, signatures, requiredSignatures)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCheckNSignatures is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x12fb68e0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function checkNSignatures(bytes32 dataHash, bytes data, bytes signatures, uint256 requiredSignatures) view returns()
func (safeL2 *SafeL2) TryPackCheckNSignatures(dataHash [32]byte, data []byte, signatures []byte, requiredSignatures *big.Int) ([]byte, error) {
	return safeL2.abi.Pack("checkNSignatures", dataHash, data, signatures, requiredSignatures)
}

// PackCheckSignatures is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x934f3a11.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function checkSignatures(bytes32 dataHash, bytes data, bytes signatures) view returns()
func (safeL2 *SafeL2) PackCheckSignatures(dataHash [32]byte, data []byte, signatures []byte) []byte {
	enc, err := safeL2.abi.Pack("checkSignatures", dataHash, data, signatures)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCheckSignatures is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x934f3a11.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function checkSignatures(bytes32 dataHash, bytes data, bytes signatures) view returns()
func (safeL2 *SafeL2) TryPackCheckSignatures(dataHash [32]byte, data []byte, signatures []byte) ([]byte, error) {
	return safeL2.abi.Pack("checkSignatures", dataHash, data, signatures)
}

// PackDisableModule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe009cfde.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function disableModule(address prevModule, address module) returns()
func (safeL2 *SafeL2) PackDisableModule(prevModule common.Address, module common.Address) []byte {
	enc, err := safeL2.abi.Pack("disableModule", prevModule, module)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDisableModule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe009cfde.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function disableModule(address prevModule, address module) returns()
func (safeL2 *SafeL2) TryPackDisableModule(prevModule common.Address, module common.Address) ([]byte, error) {
	return safeL2.abi.Pack("disableModule", prevModule, module)
}

// PackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (safeL2 *SafeL2) PackDomainSeparator() []byte {
	enc, err := safeL2.abi.Pack("domainSeparator")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (safeL2 *SafeL2) TryPackDomainSeparator() ([]byte, error) {
	return safeL2.abi.Pack("domainSeparator")
}

// UnpackDomainSeparator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (safeL2 *SafeL2) UnpackDomainSeparator(data []byte) ([32]byte, error) {
	out, err := safeL2.abi.Unpack("domainSeparator", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackEnableModule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x610b5925.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function enableModule(address module) returns()
func (safeL2 *SafeL2) PackEnableModule(module common.Address) []byte {
	enc, err := safeL2.abi.Pack("enableModule", module)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEnableModule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x610b5925.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function enableModule(address module) returns()
func (safeL2 *SafeL2) TryPackEnableModule(module common.Address) ([]byte, error) {
	return safeL2.abi.Pack("enableModule", module)
}

// PackEncodeTransactionData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe86637db.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function encodeTransactionData(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns(bytes)
func (safeL2 *SafeL2) PackEncodeTransactionData(to common.Address, value *big.Int, data []byte, operation uint8, safeTxGas *big.Int, baseGas *big.Int, gasPrice *big.Int, gasToken common.Address, refundReceiver common.Address, nonce *big.Int) []byte {
	enc, err := safeL2.abi.Pack("encodeTransactionData", to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, nonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEncodeTransactionData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe86637db.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function encodeTransactionData(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns(bytes)
func (safeL2 *SafeL2) TryPackEncodeTransactionData(to common.Address, value *big.Int, data []byte, operation uint8, safeTxGas *big.Int, baseGas *big.Int, gasPrice *big.Int, gasToken common.Address, refundReceiver common.Address, nonce *big.Int) ([]byte, error) {
	return safeL2.abi.Pack("encodeTransactionData", to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, nonce)
}

// UnpackEncodeTransactionData is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe86637db.
//
// Solidity: function encodeTransactionData(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns(bytes)
func (safeL2 *SafeL2) UnpackEncodeTransactionData(data []byte) ([]byte, error) {
	out, err := safeL2.abi.Unpack("encodeTransactionData", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackExecTransaction is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6a761202.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns(bool)
func (safeL2 *SafeL2) PackExecTransaction(to common.Address, value *big.Int, data []byte, operation uint8, safeTxGas *big.Int, baseGas *big.Int, gasPrice *big.Int, gasToken common.Address, refundReceiver common.Address, signatures []byte) []byte {
	enc, err := safeL2.abi.Pack("execTransaction", to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, signatures)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecTransaction is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6a761202.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns(bool)
func (safeL2 *SafeL2) TryPackExecTransaction(to common.Address, value *big.Int, data []byte, operation uint8, safeTxGas *big.Int, baseGas *big.Int, gasPrice *big.Int, gasToken common.Address, refundReceiver common.Address, signatures []byte) ([]byte, error) {
	return safeL2.abi.Pack("execTransaction", to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, signatures)
}

// UnpackExecTransaction is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6a761202.
//
// Solidity: function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns(bool)
func (safeL2 *SafeL2) UnpackExecTransaction(data []byte) (bool, error) {
	out, err := safeL2.abi.Unpack("execTransaction", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackExecTransactionFromModule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x468721a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execTransactionFromModule(address to, uint256 value, bytes data, uint8 operation) returns(bool success)
func (safeL2 *SafeL2) PackExecTransactionFromModule(to common.Address, value *big.Int, data []byte, operation uint8) []byte {
	enc, err := safeL2.abi.Pack("execTransactionFromModule", to, value, data, operation)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecTransactionFromModule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x468721a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execTransactionFromModule(address to, uint256 value, bytes data, uint8 operation) returns(bool success)
func (safeL2 *SafeL2) TryPackExecTransactionFromModule(to common.Address, value *big.Int, data []byte, operation uint8) ([]byte, error) {
	return safeL2.abi.Pack("execTransactionFromModule", to, value, data, operation)
}

// UnpackExecTransactionFromModule is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x468721a7.
//
// Solidity: function execTransactionFromModule(address to, uint256 value, bytes data, uint8 operation) returns(bool success)
func (safeL2 *SafeL2) UnpackExecTransactionFromModule(data []byte) (bool, error) {
	out, err := safeL2.abi.Unpack("execTransactionFromModule", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackExecTransactionFromModuleReturnData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5229073f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execTransactionFromModuleReturnData(address to, uint256 value, bytes data, uint8 operation) returns(bool success, bytes returnData)
func (safeL2 *SafeL2) PackExecTransactionFromModuleReturnData(to common.Address, value *big.Int, data []byte, operation uint8) []byte {
	enc, err := safeL2.abi.Pack("execTransactionFromModuleReturnData", to, value, data, operation)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecTransactionFromModuleReturnData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5229073f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execTransactionFromModuleReturnData(address to, uint256 value, bytes data, uint8 operation) returns(bool success, bytes returnData)
func (safeL2 *SafeL2) TryPackExecTransactionFromModuleReturnData(to common.Address, value *big.Int, data []byte, operation uint8) ([]byte, error) {
	return safeL2.abi.Pack("execTransactionFromModuleReturnData", to, value, data, operation)
}

// ExecTransactionFromModuleReturnDataOutput serves as a container for the return parameters of contract
// method ExecTransactionFromModuleReturnData.
type ExecTransactionFromModuleReturnDataOutput struct {
	Success    bool
	ReturnData []byte
}

// UnpackExecTransactionFromModuleReturnData is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5229073f.
//
// Solidity: function execTransactionFromModuleReturnData(address to, uint256 value, bytes data, uint8 operation) returns(bool success, bytes returnData)
func (safeL2 *SafeL2) UnpackExecTransactionFromModuleReturnData(data []byte) (ExecTransactionFromModuleReturnDataOutput, error) {
	out, err := safeL2.abi.Unpack("execTransactionFromModuleReturnData", data)
	outstruct := new(ExecTransactionFromModuleReturnDataOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Success = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.ReturnData = *abi.ConvertType(out[1], new([]byte)).(*[]byte)
	return *outstruct, nil
}

// PackGetChainId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3408e470.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getChainId() view returns(uint256)
func (safeL2 *SafeL2) PackGetChainId() []byte {
	enc, err := safeL2.abi.Pack("getChainId")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetChainId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3408e470.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getChainId() view returns(uint256)
func (safeL2 *SafeL2) TryPackGetChainId() ([]byte, error) {
	return safeL2.abi.Pack("getChainId")
}

// UnpackGetChainId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3408e470.
//
// Solidity: function getChainId() view returns(uint256)
func (safeL2 *SafeL2) UnpackGetChainId(data []byte) (*big.Int, error) {
	out, err := safeL2.abi.Unpack("getChainId", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetModulesPaginated is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcc2f8452.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getModulesPaginated(address start, uint256 pageSize) view returns(address[] array, address next)
func (safeL2 *SafeL2) PackGetModulesPaginated(start common.Address, pageSize *big.Int) []byte {
	enc, err := safeL2.abi.Pack("getModulesPaginated", start, pageSize)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetModulesPaginated is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcc2f8452.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getModulesPaginated(address start, uint256 pageSize) view returns(address[] array, address next)
func (safeL2 *SafeL2) TryPackGetModulesPaginated(start common.Address, pageSize *big.Int) ([]byte, error) {
	return safeL2.abi.Pack("getModulesPaginated", start, pageSize)
}

// GetModulesPaginatedOutput serves as a container for the return parameters of contract
// method GetModulesPaginated.
type GetModulesPaginatedOutput struct {
	Array []common.Address
	Next  common.Address
}

// UnpackGetModulesPaginated is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xcc2f8452.
//
// Solidity: function getModulesPaginated(address start, uint256 pageSize) view returns(address[] array, address next)
func (safeL2 *SafeL2) UnpackGetModulesPaginated(data []byte) (GetModulesPaginatedOutput, error) {
	out, err := safeL2.abi.Unpack("getModulesPaginated", data)
	outstruct := new(GetModulesPaginatedOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Array = *abi.ConvertType(out[0], new([]common.Address)).(*[]common.Address)
	outstruct.Next = *abi.ConvertType(out[1], new(common.Address)).(*common.Address)
	return *outstruct, nil
}

// PackGetOwners is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0e67e2b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getOwners() view returns(address[])
func (safeL2 *SafeL2) PackGetOwners() []byte {
	enc, err := safeL2.abi.Pack("getOwners")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetOwners is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0e67e2b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getOwners() view returns(address[])
func (safeL2 *SafeL2) TryPackGetOwners() ([]byte, error) {
	return safeL2.abi.Pack("getOwners")
}

// UnpackGetOwners is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa0e67e2b.
//
// Solidity: function getOwners() view returns(address[])
func (safeL2 *SafeL2) UnpackGetOwners(data []byte) ([]common.Address, error) {
	out, err := safeL2.abi.Unpack("getOwners", data)
	if err != nil {
		return *new([]common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new([]common.Address)).(*[]common.Address)
	return out0, nil
}

// PackGetStorageAt is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5624b25b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getStorageAt(uint256 offset, uint256 length) view returns(bytes)
func (safeL2 *SafeL2) PackGetStorageAt(offset *big.Int, length *big.Int) []byte {
	enc, err := safeL2.abi.Pack("getStorageAt", offset, length)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetStorageAt is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5624b25b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getStorageAt(uint256 offset, uint256 length) view returns(bytes)
func (safeL2 *SafeL2) TryPackGetStorageAt(offset *big.Int, length *big.Int) ([]byte, error) {
	return safeL2.abi.Pack("getStorageAt", offset, length)
}

// UnpackGetStorageAt is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5624b25b.
//
// Solidity: function getStorageAt(uint256 offset, uint256 length) view returns(bytes)
func (safeL2 *SafeL2) UnpackGetStorageAt(data []byte) ([]byte, error) {
	out, err := safeL2.abi.Unpack("getStorageAt", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackGetThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe75235b8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getThreshold() view returns(uint256)
func (safeL2 *SafeL2) PackGetThreshold() []byte {
	enc, err := safeL2.abi.Pack("getThreshold")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe75235b8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getThreshold() view returns(uint256)
func (safeL2 *SafeL2) TryPackGetThreshold() ([]byte, error) {
	return safeL2.abi.Pack("getThreshold")
}

// UnpackGetThreshold is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe75235b8.
//
// Solidity: function getThreshold() view returns(uint256)
func (safeL2 *SafeL2) UnpackGetThreshold(data []byte) (*big.Int, error) {
	out, err := safeL2.abi.Unpack("getThreshold", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetTransactionHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd8d11f78.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getTransactionHash(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns(bytes32)
func (safeL2 *SafeL2) PackGetTransactionHash(to common.Address, value *big.Int, data []byte, operation uint8, safeTxGas *big.Int, baseGas *big.Int, gasPrice *big.Int, gasToken common.Address, refundReceiver common.Address, nonce *big.Int) []byte {
	enc, err := safeL2.abi.Pack("getTransactionHash", to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, nonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetTransactionHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd8d11f78.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getTransactionHash(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns(bytes32)
func (safeL2 *SafeL2) TryPackGetTransactionHash(to common.Address, value *big.Int, data []byte, operation uint8, safeTxGas *big.Int, baseGas *big.Int, gasPrice *big.Int, gasToken common.Address, refundReceiver common.Address, nonce *big.Int) ([]byte, error) {
	return safeL2.abi.Pack("getTransactionHash", to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, nonce)
}

// UnpackGetTransactionHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd8d11f78.
//
// Solidity: function getTransactionHash(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns(bytes32)
func (safeL2 *SafeL2) UnpackGetTransactionHash(data []byte) ([32]byte, error) {
	out, err := safeL2.abi.Unpack("getTransactionHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackIsModuleEnabled is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2d9ad53d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isModuleEnabled(address module) view returns(bool)
func (safeL2 *SafeL2) PackIsModuleEnabled(module common.Address) []byte {
	enc, err := safeL2.abi.Pack("isModuleEnabled", module)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsModuleEnabled is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2d9ad53d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isModuleEnabled(address module) view returns(bool)
func (safeL2 *SafeL2) TryPackIsModuleEnabled(module common.Address) ([]byte, error) {
	return safeL2.abi.Pack("isModuleEnabled", module)
}

// UnpackIsModuleEnabled is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2d9ad53d.
//
// Solidity: function isModuleEnabled(address module) view returns(bool)
func (safeL2 *SafeL2) UnpackIsModuleEnabled(data []byte) (bool, error) {
	out, err := safeL2.abi.Unpack("isModuleEnabled", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2f54bf6e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isOwner(address owner) view returns(bool)
func (safeL2 *SafeL2) PackIsOwner(owner common.Address) []byte {
	enc, err := safeL2.abi.Pack("isOwner", owner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2f54bf6e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isOwner(address owner) view returns(bool)
func (safeL2 *SafeL2) TryPackIsOwner(owner common.Address) ([]byte, error) {
	return safeL2.abi.Pack("isOwner", owner)
}

// UnpackIsOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2f54bf6e.
//
// Solidity: function isOwner(address owner) view returns(bool)
func (safeL2 *SafeL2) UnpackIsOwner(data []byte) (bool, error) {
	out, err := safeL2.abi.Unpack("isOwner", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaffed0e0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nonce() view returns(uint256)
func (safeL2 *SafeL2) PackNonce() []byte {
	enc, err := safeL2.abi.Pack("nonce")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaffed0e0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nonce() view returns(uint256)
func (safeL2 *SafeL2) TryPackNonce() ([]byte, error) {
	return safeL2.abi.Pack("nonce")
}

// UnpackNonce is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xaffed0e0.
//
// Solidity: function nonce() view returns(uint256)
func (safeL2 *SafeL2) UnpackNonce(data []byte) (*big.Int, error) {
	out, err := safeL2.abi.Unpack("nonce", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRemoveOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf8dc5dd9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function removeOwner(address prevOwner, address owner, uint256 _threshold) returns()
func (safeL2 *SafeL2) PackRemoveOwner(prevOwner common.Address, owner common.Address, threshold *big.Int) []byte {
	enc, err := safeL2.abi.Pack("removeOwner", prevOwner, owner, threshold)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRemoveOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf8dc5dd9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function removeOwner(address prevOwner, address owner, uint256 _threshold) returns()
func (safeL2 *SafeL2) TryPackRemoveOwner(prevOwner common.Address, owner common.Address, threshold *big.Int) ([]byte, error) {
	return safeL2.abi.Pack("removeOwner", prevOwner, owner, threshold)
}

// PackSetFallbackHandler is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf08a0323.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setFallbackHandler(address handler) returns()
func (safeL2 *SafeL2) PackSetFallbackHandler(handler common.Address) []byte {
	enc, err := safeL2.abi.Pack("setFallbackHandler", handler)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetFallbackHandler is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf08a0323.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setFallbackHandler(address handler) returns()
func (safeL2 *SafeL2) TryPackSetFallbackHandler(handler common.Address) ([]byte, error) {
	return safeL2.abi.Pack("setFallbackHandler", handler)
}

// PackSetGuard is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe19a9dd9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setGuard(address guard) returns()
func (safeL2 *SafeL2) PackSetGuard(guard common.Address) []byte {
	enc, err := safeL2.abi.Pack("setGuard", guard)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetGuard is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe19a9dd9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setGuard(address guard) returns()
func (safeL2 *SafeL2) TryPackSetGuard(guard common.Address) ([]byte, error) {
	return safeL2.abi.Pack("setGuard", guard)
}

// PackSetup is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb63e800d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setup(address[] _owners, uint256 _threshold, address to, bytes data, address fallbackHandler, address paymentToken, uint256 payment, address paymentReceiver) returns()
func (safeL2 *SafeL2) PackSetup(owners []common.Address, threshold *big.Int, to common.Address, data []byte, fallbackHandler common.Address, paymentToken common.Address, payment *big.Int, paymentReceiver common.Address) []byte {
	enc, err := safeL2.abi.Pack("setup", owners, threshold, to, data, fallbackHandler, paymentToken, payment, paymentReceiver)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetup is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb63e800d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setup(address[] _owners, uint256 _threshold, address to, bytes data, address fallbackHandler, address paymentToken, uint256 payment, address paymentReceiver) returns()
func (safeL2 *SafeL2) TryPackSetup(owners []common.Address, threshold *big.Int, to common.Address, data []byte, fallbackHandler common.Address, paymentToken common.Address, payment *big.Int, paymentReceiver common.Address) ([]byte, error) {
	return safeL2.abi.Pack("setup", owners, threshold, to, data, fallbackHandler, paymentToken, payment, paymentReceiver)
}

// PackSignedMessages is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5ae6bd37.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function signedMessages(bytes32 ) view returns(uint256)
func (safeL2 *SafeL2) PackSignedMessages(arg0 [32]byte) []byte {
	enc, err := safeL2.abi.Pack("signedMessages", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSignedMessages is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5ae6bd37.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function signedMessages(bytes32 ) view returns(uint256)
func (safeL2 *SafeL2) TryPackSignedMessages(arg0 [32]byte) ([]byte, error) {
	return safeL2.abi.Pack("signedMessages", arg0)
}

// UnpackSignedMessages is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5ae6bd37.
//
// Solidity: function signedMessages(bytes32 ) view returns(uint256)
func (safeL2 *SafeL2) UnpackSignedMessages(data []byte) (*big.Int, error) {
	out, err := safeL2.abi.Unpack("signedMessages", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackSimulateAndRevert is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb4faba09.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function simulateAndRevert(address targetContract, bytes calldataPayload) returns()
func (safeL2 *SafeL2) PackSimulateAndRevert(targetContract common.Address, calldataPayload []byte) []byte {
	enc, err := safeL2.abi.Pack("simulateAndRevert", targetContract, calldataPayload)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSimulateAndRevert is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb4faba09.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function simulateAndRevert(address targetContract, bytes calldataPayload) returns()
func (safeL2 *SafeL2) TryPackSimulateAndRevert(targetContract common.Address, calldataPayload []byte) ([]byte, error) {
	return safeL2.abi.Pack("simulateAndRevert", targetContract, calldataPayload)
}

// PackSwapOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe318b52b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function swapOwner(address prevOwner, address oldOwner, address newOwner) returns()
func (safeL2 *SafeL2) PackSwapOwner(prevOwner common.Address, oldOwner common.Address, newOwner common.Address) []byte {
	enc, err := safeL2.abi.Pack("swapOwner", prevOwner, oldOwner, newOwner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSwapOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe318b52b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function swapOwner(address prevOwner, address oldOwner, address newOwner) returns()
func (safeL2 *SafeL2) TryPackSwapOwner(prevOwner common.Address, oldOwner common.Address, newOwner common.Address) ([]byte, error) {
	return safeL2.abi.Pack("swapOwner", prevOwner, oldOwner, newOwner)
}

// SafeL2AddedOwner represents a AddedOwner event raised by the SafeL2 contract.
type SafeL2AddedOwner struct {
	Owner common.Address
	Raw   *types.Log // Blockchain specific contextual infos
}

const SafeL2AddedOwnerEventName = "AddedOwner"

// ContractEventName returns the user-defined event name.
func (SafeL2AddedOwner) ContractEventName() string {
	return SafeL2AddedOwnerEventName
}

// UnpackAddedOwnerEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event AddedOwner(address indexed owner)
func (safeL2 *SafeL2) UnpackAddedOwnerEvent(log *types.Log) (*SafeL2AddedOwner, error) {
	event := "AddedOwner"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2AddedOwner)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2ApproveHash represents a ApproveHash event raised by the SafeL2 contract.
type SafeL2ApproveHash struct {
	ApprovedHash [32]byte
	Owner        common.Address
	Raw          *types.Log // Blockchain specific contextual infos
}

const SafeL2ApproveHashEventName = "ApproveHash"

// ContractEventName returns the user-defined event name.
func (SafeL2ApproveHash) ContractEventName() string {
	return SafeL2ApproveHashEventName
}

// UnpackApproveHashEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ApproveHash(bytes32 indexed approvedHash, address indexed owner)
func (safeL2 *SafeL2) UnpackApproveHashEvent(log *types.Log) (*SafeL2ApproveHash, error) {
	event := "ApproveHash"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2ApproveHash)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2ChangedFallbackHandler represents a ChangedFallbackHandler event raised by the SafeL2 contract.
type SafeL2ChangedFallbackHandler struct {
	Handler common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const SafeL2ChangedFallbackHandlerEventName = "ChangedFallbackHandler"

// ContractEventName returns the user-defined event name.
func (SafeL2ChangedFallbackHandler) ContractEventName() string {
	return SafeL2ChangedFallbackHandlerEventName
}

// UnpackChangedFallbackHandlerEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ChangedFallbackHandler(address indexed handler)
func (safeL2 *SafeL2) UnpackChangedFallbackHandlerEvent(log *types.Log) (*SafeL2ChangedFallbackHandler, error) {
	event := "ChangedFallbackHandler"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2ChangedFallbackHandler)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2ChangedGuard represents a ChangedGuard event raised by the SafeL2 contract.
type SafeL2ChangedGuard struct {
	Guard common.Address
	Raw   *types.Log // Blockchain specific contextual infos
}

const SafeL2ChangedGuardEventName = "ChangedGuard"

// ContractEventName returns the user-defined event name.
func (SafeL2ChangedGuard) ContractEventName() string {
	return SafeL2ChangedGuardEventName
}

// UnpackChangedGuardEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ChangedGuard(address indexed guard)
func (safeL2 *SafeL2) UnpackChangedGuardEvent(log *types.Log) (*SafeL2ChangedGuard, error) {
	event := "ChangedGuard"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2ChangedGuard)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2ChangedThreshold represents a ChangedThreshold event raised by the SafeL2 contract.
type SafeL2ChangedThreshold struct {
	Threshold *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const SafeL2ChangedThresholdEventName = "ChangedThreshold"

// ContractEventName returns the user-defined event name.
func (SafeL2ChangedThreshold) ContractEventName() string {
	return SafeL2ChangedThresholdEventName
}

// UnpackChangedThresholdEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ChangedThreshold(uint256 threshold)
func (safeL2 *SafeL2) UnpackChangedThresholdEvent(log *types.Log) (*SafeL2ChangedThreshold, error) {
	event := "ChangedThreshold"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2ChangedThreshold)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2DisabledModule represents a DisabledModule event raised by the SafeL2 contract.
type SafeL2DisabledModule struct {
	Module common.Address
	Raw    *types.Log // Blockchain specific contextual infos
}

const SafeL2DisabledModuleEventName = "DisabledModule"

// ContractEventName returns the user-defined event name.
func (SafeL2DisabledModule) ContractEventName() string {
	return SafeL2DisabledModuleEventName
}

// UnpackDisabledModuleEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DisabledModule(address indexed module)
func (safeL2 *SafeL2) UnpackDisabledModuleEvent(log *types.Log) (*SafeL2DisabledModule, error) {
	event := "DisabledModule"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2DisabledModule)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2EnabledModule represents a EnabledModule event raised by the SafeL2 contract.
type SafeL2EnabledModule struct {
	Module common.Address
	Raw    *types.Log // Blockchain specific contextual infos
}

const SafeL2EnabledModuleEventName = "EnabledModule"

// ContractEventName returns the user-defined event name.
func (SafeL2EnabledModule) ContractEventName() string {
	return SafeL2EnabledModuleEventName
}

// UnpackEnabledModuleEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EnabledModule(address indexed module)
func (safeL2 *SafeL2) UnpackEnabledModuleEvent(log *types.Log) (*SafeL2EnabledModule, error) {
	event := "EnabledModule"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2EnabledModule)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2ExecutionFailure represents a ExecutionFailure event raised by the SafeL2 contract.
type SafeL2ExecutionFailure struct {
	TxHash  [32]byte
	Payment *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const SafeL2ExecutionFailureEventName = "ExecutionFailure"

// ContractEventName returns the user-defined event name.
func (SafeL2ExecutionFailure) ContractEventName() string {
	return SafeL2ExecutionFailureEventName
}

// UnpackExecutionFailureEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ExecutionFailure(bytes32 indexed txHash, uint256 payment)
func (safeL2 *SafeL2) UnpackExecutionFailureEvent(log *types.Log) (*SafeL2ExecutionFailure, error) {
	event := "ExecutionFailure"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2ExecutionFailure)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2ExecutionFromModuleFailure represents a ExecutionFromModuleFailure event raised by the SafeL2 contract.
type SafeL2ExecutionFromModuleFailure struct {
	Module common.Address
	Raw    *types.Log // Blockchain specific contextual infos
}

const SafeL2ExecutionFromModuleFailureEventName = "ExecutionFromModuleFailure"

// ContractEventName returns the user-defined event name.
func (SafeL2ExecutionFromModuleFailure) ContractEventName() string {
	return SafeL2ExecutionFromModuleFailureEventName
}

// UnpackExecutionFromModuleFailureEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ExecutionFromModuleFailure(address indexed module)
func (safeL2 *SafeL2) UnpackExecutionFromModuleFailureEvent(log *types.Log) (*SafeL2ExecutionFromModuleFailure, error) {
	event := "ExecutionFromModuleFailure"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2ExecutionFromModuleFailure)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2ExecutionFromModuleSuccess represents a ExecutionFromModuleSuccess event raised by the SafeL2 contract.
type SafeL2ExecutionFromModuleSuccess struct {
	Module common.Address
	Raw    *types.Log // Blockchain specific contextual infos
}

const SafeL2ExecutionFromModuleSuccessEventName = "ExecutionFromModuleSuccess"

// ContractEventName returns the user-defined event name.
func (SafeL2ExecutionFromModuleSuccess) ContractEventName() string {
	return SafeL2ExecutionFromModuleSuccessEventName
}

// UnpackExecutionFromModuleSuccessEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ExecutionFromModuleSuccess(address indexed module)
func (safeL2 *SafeL2) UnpackExecutionFromModuleSuccessEvent(log *types.Log) (*SafeL2ExecutionFromModuleSuccess, error) {
	event := "ExecutionFromModuleSuccess"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2ExecutionFromModuleSuccess)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2ExecutionSuccess represents a ExecutionSuccess event raised by the SafeL2 contract.
type SafeL2ExecutionSuccess struct {
	TxHash  [32]byte
	Payment *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const SafeL2ExecutionSuccessEventName = "ExecutionSuccess"

// ContractEventName returns the user-defined event name.
func (SafeL2ExecutionSuccess) ContractEventName() string {
	return SafeL2ExecutionSuccessEventName
}

// UnpackExecutionSuccessEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ExecutionSuccess(bytes32 indexed txHash, uint256 payment)
func (safeL2 *SafeL2) UnpackExecutionSuccessEvent(log *types.Log) (*SafeL2ExecutionSuccess, error) {
	event := "ExecutionSuccess"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2ExecutionSuccess)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2RemovedOwner represents a RemovedOwner event raised by the SafeL2 contract.
type SafeL2RemovedOwner struct {
	Owner common.Address
	Raw   *types.Log // Blockchain specific contextual infos
}

const SafeL2RemovedOwnerEventName = "RemovedOwner"

// ContractEventName returns the user-defined event name.
func (SafeL2RemovedOwner) ContractEventName() string {
	return SafeL2RemovedOwnerEventName
}

// UnpackRemovedOwnerEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RemovedOwner(address indexed owner)
func (safeL2 *SafeL2) UnpackRemovedOwnerEvent(log *types.Log) (*SafeL2RemovedOwner, error) {
	event := "RemovedOwner"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2RemovedOwner)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2SafeModuleTransaction represents a SafeModuleTransaction event raised by the SafeL2 contract.
type SafeL2SafeModuleTransaction struct {
	Module    common.Address
	To        common.Address
	Value     *big.Int
	Data      []byte
	Operation uint8
	Raw       *types.Log // Blockchain specific contextual infos
}

const SafeL2SafeModuleTransactionEventName = "SafeModuleTransaction"

// ContractEventName returns the user-defined event name.
func (SafeL2SafeModuleTransaction) ContractEventName() string {
	return SafeL2SafeModuleTransactionEventName
}

// UnpackSafeModuleTransactionEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event SafeModuleTransaction(address module, address to, uint256 value, bytes data, uint8 operation)
func (safeL2 *SafeL2) UnpackSafeModuleTransactionEvent(log *types.Log) (*SafeL2SafeModuleTransaction, error) {
	event := "SafeModuleTransaction"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2SafeModuleTransaction)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2SafeMultiSigTransaction represents a SafeMultiSigTransaction event raised by the SafeL2 contract.
type SafeL2SafeMultiSigTransaction struct {
	To             common.Address
	Value          *big.Int
	Data           []byte
	Operation      uint8
	SafeTxGas      *big.Int
	BaseGas        *big.Int
	GasPrice       *big.Int
	GasToken       common.Address
	RefundReceiver common.Address
	Signatures     []byte
	AdditionalInfo []byte
	Raw            *types.Log // Blockchain specific contextual infos
}

const SafeL2SafeMultiSigTransactionEventName = "SafeMultiSigTransaction"

// ContractEventName returns the user-defined event name.
func (SafeL2SafeMultiSigTransaction) ContractEventName() string {
	return SafeL2SafeMultiSigTransactionEventName
}

// UnpackSafeMultiSigTransactionEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event SafeMultiSigTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures, bytes additionalInfo)
func (safeL2 *SafeL2) UnpackSafeMultiSigTransactionEvent(log *types.Log) (*SafeL2SafeMultiSigTransaction, error) {
	event := "SafeMultiSigTransaction"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2SafeMultiSigTransaction)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2SafeReceived represents a SafeReceived event raised by the SafeL2 contract.
type SafeL2SafeReceived struct {
	Sender common.Address
	Value  *big.Int
	Raw    *types.Log // Blockchain specific contextual infos
}

const SafeL2SafeReceivedEventName = "SafeReceived"

// ContractEventName returns the user-defined event name.
func (SafeL2SafeReceived) ContractEventName() string {
	return SafeL2SafeReceivedEventName
}

// UnpackSafeReceivedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event SafeReceived(address indexed sender, uint256 value)
func (safeL2 *SafeL2) UnpackSafeReceivedEvent(log *types.Log) (*SafeL2SafeReceived, error) {
	event := "SafeReceived"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2SafeReceived)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2SafeSetup represents a SafeSetup event raised by the SafeL2 contract.
type SafeL2SafeSetup struct {
	Initiator       common.Address
	Owners          []common.Address
	Threshold       *big.Int
	Initializer     common.Address
	FallbackHandler common.Address
	Raw             *types.Log // Blockchain specific contextual infos
}

const SafeL2SafeSetupEventName = "SafeSetup"

// ContractEventName returns the user-defined event name.
func (SafeL2SafeSetup) ContractEventName() string {
	return SafeL2SafeSetupEventName
}

// UnpackSafeSetupEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event SafeSetup(address indexed initiator, address[] owners, uint256 threshold, address initializer, address fallbackHandler)
func (safeL2 *SafeL2) UnpackSafeSetupEvent(log *types.Log) (*SafeL2SafeSetup, error) {
	event := "SafeSetup"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2SafeSetup)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// SafeL2SignMsg represents a SignMsg event raised by the SafeL2 contract.
type SafeL2SignMsg struct {
	MsgHash [32]byte
	Raw     *types.Log // Blockchain specific contextual infos
}

const SafeL2SignMsgEventName = "SignMsg"

// ContractEventName returns the user-defined event name.
func (SafeL2SignMsg) ContractEventName() string {
	return SafeL2SignMsgEventName
}

// UnpackSignMsgEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event SignMsg(bytes32 indexed msgHash)
func (safeL2 *SafeL2) UnpackSignMsgEvent(log *types.Log) (*SafeL2SignMsg, error) {
	event := "SignMsg"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeL2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeL2SignMsg)
	if len(log.Data) > 0 {
		if err := safeL2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeL2.abi.Events[event].Inputs {
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

// abi-sha256: 5a3eadce91ece80dd0800663c55bf1f15009c61c931b6d2a54cd966938d41363 abigen: v1.17.10
