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

// CheckoutDepositFactoryMetaData contains all meta data concerning the CheckoutDepositFactory contract.
var CheckoutDepositFactoryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"settlement_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"deposit\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"CheckoutSwept\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"refundId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Refunded\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"name\":\"depositAddress\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"depositCodeHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"operator\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"refundId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"refund\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"refundId\",\"type\":\"bytes32\"}],\"name\":\"refundOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"settlement\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"name\":\"sweep\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"token\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "CheckoutDepositFactory",
}

// CheckoutDepositFactory is an auto generated Go binding around an Ethereum contract.
type CheckoutDepositFactory struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *CheckoutDepositFactory) GetABI() abi.ABI {
	return c.abi
}

// NewCheckoutDepositFactory creates a new instance of CheckoutDepositFactory.
func NewCheckoutDepositFactory() *CheckoutDepositFactory {
	parsed, err := CheckoutDepositFactoryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &CheckoutDepositFactory{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *CheckoutDepositFactory) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address operator_, address token_, address settlement_) returns()
func (checkoutDepositFactory *CheckoutDepositFactory) PackConstructor(operator_ common.Address, token_ common.Address, settlement_ common.Address) []byte {
	enc, err := checkoutDepositFactory.abi.Pack("", operator_, token_, settlement_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDepositAddress is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x31eecaf4.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositAddress(bytes32 salt) view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) PackDepositAddress(salt [32]byte) []byte {
	enc, err := checkoutDepositFactory.abi.Pack("depositAddress", salt)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositAddress is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x31eecaf4.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositAddress(bytes32 salt) view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) TryPackDepositAddress(salt [32]byte) ([]byte, error) {
	return checkoutDepositFactory.abi.Pack("depositAddress", salt)
}

// UnpackDepositAddress is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x31eecaf4.
//
// Solidity: function depositAddress(bytes32 salt) view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackDepositAddress(data []byte) (common.Address, error) {
	out, err := checkoutDepositFactory.abi.Unpack("depositAddress", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackDepositCodeHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb9e578b0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositCodeHash() pure returns(bytes32)
func (checkoutDepositFactory *CheckoutDepositFactory) PackDepositCodeHash() []byte {
	enc, err := checkoutDepositFactory.abi.Pack("depositCodeHash")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositCodeHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb9e578b0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositCodeHash() pure returns(bytes32)
func (checkoutDepositFactory *CheckoutDepositFactory) TryPackDepositCodeHash() ([]byte, error) {
	return checkoutDepositFactory.abi.Pack("depositCodeHash")
}

// UnpackDepositCodeHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb9e578b0.
//
// Solidity: function depositCodeHash() pure returns(bytes32)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackDepositCodeHash(data []byte) ([32]byte, error) {
	out, err := checkoutDepositFactory.abi.Unpack("depositCodeHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackOperator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x570ca735.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function operator() view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) PackOperator() []byte {
	enc, err := checkoutDepositFactory.abi.Pack("operator")
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
func (checkoutDepositFactory *CheckoutDepositFactory) TryPackOperator() ([]byte, error) {
	return checkoutDepositFactory.abi.Pack("operator")
}

// UnpackOperator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackOperator(data []byte) (common.Address, error) {
	out, err := checkoutDepositFactory.abi.Unpack("operator", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4020ed14.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refund(bytes32 refundId, address to, uint256 amount) returns()
func (checkoutDepositFactory *CheckoutDepositFactory) PackRefund(refundId [32]byte, to common.Address, amount *big.Int) []byte {
	enc, err := checkoutDepositFactory.abi.Pack("refund", refundId, to, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4020ed14.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refund(bytes32 refundId, address to, uint256 amount) returns()
func (checkoutDepositFactory *CheckoutDepositFactory) TryPackRefund(refundId [32]byte, to common.Address, amount *big.Int) ([]byte, error) {
	return checkoutDepositFactory.abi.Pack("refund", refundId, to, amount)
}

// PackRefundOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1d89abac.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refundOf(bytes32 refundId) view returns(address to, uint256 amount)
func (checkoutDepositFactory *CheckoutDepositFactory) PackRefundOf(refundId [32]byte) []byte {
	enc, err := checkoutDepositFactory.abi.Pack("refundOf", refundId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefundOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1d89abac.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refundOf(bytes32 refundId) view returns(address to, uint256 amount)
func (checkoutDepositFactory *CheckoutDepositFactory) TryPackRefundOf(refundId [32]byte) ([]byte, error) {
	return checkoutDepositFactory.abi.Pack("refundOf", refundId)
}

// RefundOfOutput serves as a container for the return parameters of contract
// method RefundOf.
type RefundOfOutput struct {
	To     common.Address
	Amount *big.Int
}

// UnpackRefundOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1d89abac.
//
// Solidity: function refundOf(bytes32 refundId) view returns(address to, uint256 amount)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackRefundOf(data []byte) (RefundOfOutput, error) {
	out, err := checkoutDepositFactory.abi.Unpack("refundOf", data)
	outstruct := new(RefundOfOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.To = *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	outstruct.Amount = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackSettlement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x51160630.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settlement() view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) PackSettlement() []byte {
	enc, err := checkoutDepositFactory.abi.Pack("settlement")
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
func (checkoutDepositFactory *CheckoutDepositFactory) TryPackSettlement() ([]byte, error) {
	return checkoutDepositFactory.abi.Pack("settlement")
}

// UnpackSettlement is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x51160630.
//
// Solidity: function settlement() view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackSettlement(data []byte) (common.Address, error) {
	out, err := checkoutDepositFactory.abi.Unpack("settlement", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSweep is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x248eb4ec.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sweep(bytes32 salt) returns(uint256 amount)
func (checkoutDepositFactory *CheckoutDepositFactory) PackSweep(salt [32]byte) []byte {
	enc, err := checkoutDepositFactory.abi.Pack("sweep", salt)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSweep is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x248eb4ec.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sweep(bytes32 salt) returns(uint256 amount)
func (checkoutDepositFactory *CheckoutDepositFactory) TryPackSweep(salt [32]byte) ([]byte, error) {
	return checkoutDepositFactory.abi.Pack("sweep", salt)
}

// UnpackSweep is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x248eb4ec.
//
// Solidity: function sweep(bytes32 salt) returns(uint256 amount)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackSweep(data []byte) (*big.Int, error) {
	out, err := checkoutDepositFactory.abi.Unpack("sweep", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackToken is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfc0c546a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function token() view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) PackToken() []byte {
	enc, err := checkoutDepositFactory.abi.Pack("token")
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
func (checkoutDepositFactory *CheckoutDepositFactory) TryPackToken() ([]byte, error) {
	return checkoutDepositFactory.abi.Pack("token")
}

// UnpackToken is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfc0c546a.
//
// Solidity: function token() view returns(address)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackToken(data []byte) (common.Address, error) {
	out, err := checkoutDepositFactory.abi.Unpack("token", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// CheckoutDepositFactoryCheckoutSwept represents a CheckoutSwept event raised by the CheckoutDepositFactory contract.
type CheckoutDepositFactoryCheckoutSwept struct {
	Salt    [32]byte
	Deposit common.Address
	Amount  *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const CheckoutDepositFactoryCheckoutSweptEventName = "CheckoutSwept"

// ContractEventName returns the user-defined event name.
func (CheckoutDepositFactoryCheckoutSwept) ContractEventName() string {
	return CheckoutDepositFactoryCheckoutSweptEventName
}

// UnpackCheckoutSweptEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event CheckoutSwept(bytes32 indexed salt, address indexed deposit, uint256 amount)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackCheckoutSweptEvent(log *types.Log) (*CheckoutDepositFactoryCheckoutSwept, error) {
	event := "CheckoutSwept"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != checkoutDepositFactory.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(CheckoutDepositFactoryCheckoutSwept)
	if len(log.Data) > 0 {
		if err := checkoutDepositFactory.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range checkoutDepositFactory.abi.Events[event].Inputs {
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

// CheckoutDepositFactoryRefunded represents a Refunded event raised by the CheckoutDepositFactory contract.
type CheckoutDepositFactoryRefunded struct {
	RefundId [32]byte
	To       common.Address
	Amount   *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const CheckoutDepositFactoryRefundedEventName = "Refunded"

// ContractEventName returns the user-defined event name.
func (CheckoutDepositFactoryRefunded) ContractEventName() string {
	return CheckoutDepositFactoryRefundedEventName
}

// UnpackRefundedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Refunded(bytes32 indexed refundId, address indexed to, uint256 amount)
func (checkoutDepositFactory *CheckoutDepositFactory) UnpackRefundedEvent(log *types.Log) (*CheckoutDepositFactoryRefunded, error) {
	event := "Refunded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != checkoutDepositFactory.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(CheckoutDepositFactoryRefunded)
	if len(log.Data) > 0 {
		if err := checkoutDepositFactory.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range checkoutDepositFactory.abi.Events[event].Inputs {
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

// abi-sha256: d503731a3b4d1cc9f727aab0503d940446212240b199ee90448cdc7278b18f9d abigen: v1.17.10
