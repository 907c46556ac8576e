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

// CardSpendModuleMetaData contains all meta data concerning the CardSpendModule contract.
var CardSpendModuleMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"settlement_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"safe\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"ref\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"CardSpendSettled\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"enableOnSetup\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"operator\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"self\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"safe\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"ref\",\"type\":\"bytes32\"}],\"name\":\"settle\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"settlement\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"ref\",\"type\":\"bytes32\"}],\"name\":\"settlements\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"safe\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"token\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "CardSpendModule",
}

// CardSpendModule is an auto generated Go binding around an Ethereum contract.
type CardSpendModule struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *CardSpendModule) GetABI() abi.ABI {
	return c.abi
}

// NewCardSpendModule creates a new instance of CardSpendModule.
func NewCardSpendModule() *CardSpendModule {
	parsed, err := CardSpendModuleMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &CardSpendModule{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *CardSpendModule) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address operator_, address token_, address settlement_) returns()
func (cardSpendModule *CardSpendModule) PackConstructor(operator_ common.Address, token_ common.Address, settlement_ common.Address) []byte {
	enc, err := cardSpendModule.abi.Pack("", operator_, token_, settlement_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackEnableOnSetup is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8a80650c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function enableOnSetup() returns()
func (cardSpendModule *CardSpendModule) PackEnableOnSetup() []byte {
	enc, err := cardSpendModule.abi.Pack("enableOnSetup")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEnableOnSetup is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8a80650c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function enableOnSetup() returns()
func (cardSpendModule *CardSpendModule) TryPackEnableOnSetup() ([]byte, error) {
	return cardSpendModule.abi.Pack("enableOnSetup")
}

// PackOperator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x570ca735.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function operator() view returns(address)
func (cardSpendModule *CardSpendModule) PackOperator() []byte {
	enc, err := cardSpendModule.abi.Pack("operator")
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
func (cardSpendModule *CardSpendModule) TryPackOperator() ([]byte, error) {
	return cardSpendModule.abi.Pack("operator")
}

// UnpackOperator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (cardSpendModule *CardSpendModule) UnpackOperator(data []byte) (common.Address, error) {
	out, err := cardSpendModule.abi.Unpack("operator", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSelf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7104ddb2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function self() view returns(address)
func (cardSpendModule *CardSpendModule) PackSelf() []byte {
	enc, err := cardSpendModule.abi.Pack("self")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSelf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7104ddb2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function self() view returns(address)
func (cardSpendModule *CardSpendModule) TryPackSelf() ([]byte, error) {
	return cardSpendModule.abi.Pack("self")
}

// UnpackSelf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7104ddb2.
//
// Solidity: function self() view returns(address)
func (cardSpendModule *CardSpendModule) UnpackSelf(data []byte) (common.Address, error) {
	out, err := cardSpendModule.abi.Unpack("self", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSettle is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0f4d42f7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settle(address safe, uint256 amount, bytes32 ref) returns()
func (cardSpendModule *CardSpendModule) PackSettle(safe common.Address, amount *big.Int, ref [32]byte) []byte {
	enc, err := cardSpendModule.abi.Pack("settle", safe, amount, ref)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettle is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0f4d42f7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settle(address safe, uint256 amount, bytes32 ref) returns()
func (cardSpendModule *CardSpendModule) TryPackSettle(safe common.Address, amount *big.Int, ref [32]byte) ([]byte, error) {
	return cardSpendModule.abi.Pack("settle", safe, amount, ref)
}

// PackSettlement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x51160630.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settlement() view returns(address)
func (cardSpendModule *CardSpendModule) PackSettlement() []byte {
	enc, err := cardSpendModule.abi.Pack("settlement")
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
func (cardSpendModule *CardSpendModule) TryPackSettlement() ([]byte, error) {
	return cardSpendModule.abi.Pack("settlement")
}

// UnpackSettlement is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x51160630.
//
// Solidity: function settlement() view returns(address)
func (cardSpendModule *CardSpendModule) UnpackSettlement(data []byte) (common.Address, error) {
	out, err := cardSpendModule.abi.Unpack("settlement", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSettlements is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01bc95e2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settlements(bytes32 ref) view returns(address safe, uint256 amount)
func (cardSpendModule *CardSpendModule) PackSettlements(ref [32]byte) []byte {
	enc, err := cardSpendModule.abi.Pack("settlements", ref)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettlements is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01bc95e2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settlements(bytes32 ref) view returns(address safe, uint256 amount)
func (cardSpendModule *CardSpendModule) TryPackSettlements(ref [32]byte) ([]byte, error) {
	return cardSpendModule.abi.Pack("settlements", ref)
}

// SettlementsOutput serves as a container for the return parameters of contract
// method Settlements.
type SettlementsOutput struct {
	Safe   common.Address
	Amount *big.Int
}

// UnpackSettlements is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x01bc95e2.
//
// Solidity: function settlements(bytes32 ref) view returns(address safe, uint256 amount)
func (cardSpendModule *CardSpendModule) UnpackSettlements(data []byte) (SettlementsOutput, error) {
	out, err := cardSpendModule.abi.Unpack("settlements", data)
	outstruct := new(SettlementsOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Safe = *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	outstruct.Amount = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackToken is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfc0c546a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function token() view returns(address)
func (cardSpendModule *CardSpendModule) PackToken() []byte {
	enc, err := cardSpendModule.abi.Pack("token")
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
func (cardSpendModule *CardSpendModule) TryPackToken() ([]byte, error) {
	return cardSpendModule.abi.Pack("token")
}

// UnpackToken is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfc0c546a.
//
// Solidity: function token() view returns(address)
func (cardSpendModule *CardSpendModule) UnpackToken(data []byte) (common.Address, error) {
	out, err := cardSpendModule.abi.Unpack("token", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// CardSpendModuleCardSpendSettled represents a CardSpendSettled event raised by the CardSpendModule contract.
type CardSpendModuleCardSpendSettled struct {
	Safe   common.Address
	Ref    [32]byte
	Amount *big.Int
	Raw    *types.Log // Blockchain specific contextual infos
}

const CardSpendModuleCardSpendSettledEventName = "CardSpendSettled"

// ContractEventName returns the user-defined event name.
func (CardSpendModuleCardSpendSettled) ContractEventName() string {
	return CardSpendModuleCardSpendSettledEventName
}

// UnpackCardSpendSettledEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event CardSpendSettled(address indexed safe, bytes32 indexed ref, uint256 amount)
func (cardSpendModule *CardSpendModule) UnpackCardSpendSettledEvent(log *types.Log) (*CardSpendModuleCardSpendSettled, error) {
	event := "CardSpendSettled"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != cardSpendModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(CardSpendModuleCardSpendSettled)
	if len(log.Data) > 0 {
		if err := cardSpendModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range cardSpendModule.abi.Events[event].Inputs {
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

// abi-sha256: c00d3341eb9620bcfc578a57c24ade42d15af2e3c73575dd2f5a4d00e6f20e76 abigen: v1.17.10
