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

// SafeProxyFactoryMetaData contains all meta data concerning the SafeProxyFactory contract.
var SafeProxyFactoryMetaData = bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"contractSafeProxy\",\"name\":\"proxy\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"singleton\",\"type\":\"address\"}],\"name\":\"ProxyCreation\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"_singleton\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"initializer\",\"type\":\"bytes\"},{\"internalType\":\"uint256\",\"name\":\"saltNonce\",\"type\":\"uint256\"}],\"name\":\"createChainSpecificProxyWithNonce\",\"outputs\":[{\"internalType\":\"contractSafeProxy\",\"name\":\"proxy\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"_singleton\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"initializer\",\"type\":\"bytes\"},{\"internalType\":\"uint256\",\"name\":\"saltNonce\",\"type\":\"uint256\"},{\"internalType\":\"contractIProxyCreationCallback\",\"name\":\"callback\",\"type\":\"address\"}],\"name\":\"createProxyWithCallback\",\"outputs\":[{\"internalType\":\"contractSafeProxy\",\"name\":\"proxy\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"_singleton\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"initializer\",\"type\":\"bytes\"},{\"internalType\":\"uint256\",\"name\":\"saltNonce\",\"type\":\"uint256\"}],\"name\":\"createProxyWithNonce\",\"outputs\":[{\"internalType\":\"contractSafeProxy\",\"name\":\"proxy\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getChainId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"proxyCreationCode\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"pure\",\"type\":\"function\"}]",
	ID:  "SafeProxyFactory",
}

// SafeProxyFactory is an auto generated Go binding around an Ethereum contract.
type SafeProxyFactory struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *SafeProxyFactory) GetABI() abi.ABI {
	return c.abi
}

// NewSafeProxyFactory creates a new instance of SafeProxyFactory.
func NewSafeProxyFactory() *SafeProxyFactory {
	parsed, err := SafeProxyFactoryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &SafeProxyFactory{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *SafeProxyFactory) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackCreateChainSpecificProxyWithNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xec9e80bb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function createChainSpecificProxyWithNonce(address _singleton, bytes initializer, uint256 saltNonce) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) PackCreateChainSpecificProxyWithNonce(singleton common.Address, initializer []byte, saltNonce *big.Int) []byte {
	enc, err := safeProxyFactory.abi.Pack("createChainSpecificProxyWithNonce", singleton, initializer, saltNonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCreateChainSpecificProxyWithNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xec9e80bb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function createChainSpecificProxyWithNonce(address _singleton, bytes initializer, uint256 saltNonce) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) TryPackCreateChainSpecificProxyWithNonce(singleton common.Address, initializer []byte, saltNonce *big.Int) ([]byte, error) {
	return safeProxyFactory.abi.Pack("createChainSpecificProxyWithNonce", singleton, initializer, saltNonce)
}

// UnpackCreateChainSpecificProxyWithNonce is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xec9e80bb.
//
// Solidity: function createChainSpecificProxyWithNonce(address _singleton, bytes initializer, uint256 saltNonce) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) UnpackCreateChainSpecificProxyWithNonce(data []byte) (common.Address, error) {
	out, err := safeProxyFactory.abi.Unpack("createChainSpecificProxyWithNonce", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackCreateProxyWithCallback is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd18af54d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function createProxyWithCallback(address _singleton, bytes initializer, uint256 saltNonce, address callback) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) PackCreateProxyWithCallback(singleton common.Address, initializer []byte, saltNonce *big.Int, callback common.Address) []byte {
	enc, err := safeProxyFactory.abi.Pack("createProxyWithCallback", singleton, initializer, saltNonce, callback)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCreateProxyWithCallback is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd18af54d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function createProxyWithCallback(address _singleton, bytes initializer, uint256 saltNonce, address callback) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) TryPackCreateProxyWithCallback(singleton common.Address, initializer []byte, saltNonce *big.Int, callback common.Address) ([]byte, error) {
	return safeProxyFactory.abi.Pack("createProxyWithCallback", singleton, initializer, saltNonce, callback)
}

// UnpackCreateProxyWithCallback is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd18af54d.
//
// Solidity: function createProxyWithCallback(address _singleton, bytes initializer, uint256 saltNonce, address callback) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) UnpackCreateProxyWithCallback(data []byte) (common.Address, error) {
	out, err := safeProxyFactory.abi.Unpack("createProxyWithCallback", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackCreateProxyWithNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1688f0b9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function createProxyWithNonce(address _singleton, bytes initializer, uint256 saltNonce) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) PackCreateProxyWithNonce(singleton common.Address, initializer []byte, saltNonce *big.Int) []byte {
	enc, err := safeProxyFactory.abi.Pack("createProxyWithNonce", singleton, initializer, saltNonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCreateProxyWithNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1688f0b9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function createProxyWithNonce(address _singleton, bytes initializer, uint256 saltNonce) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) TryPackCreateProxyWithNonce(singleton common.Address, initializer []byte, saltNonce *big.Int) ([]byte, error) {
	return safeProxyFactory.abi.Pack("createProxyWithNonce", singleton, initializer, saltNonce)
}

// UnpackCreateProxyWithNonce is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1688f0b9.
//
// Solidity: function createProxyWithNonce(address _singleton, bytes initializer, uint256 saltNonce) returns(address proxy)
func (safeProxyFactory *SafeProxyFactory) UnpackCreateProxyWithNonce(data []byte) (common.Address, error) {
	out, err := safeProxyFactory.abi.Unpack("createProxyWithNonce", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackGetChainId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3408e470.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getChainId() view returns(uint256)
func (safeProxyFactory *SafeProxyFactory) PackGetChainId() []byte {
	enc, err := safeProxyFactory.abi.Pack("getChainId")
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
func (safeProxyFactory *SafeProxyFactory) TryPackGetChainId() ([]byte, error) {
	return safeProxyFactory.abi.Pack("getChainId")
}

// UnpackGetChainId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3408e470.
//
// Solidity: function getChainId() view returns(uint256)
func (safeProxyFactory *SafeProxyFactory) UnpackGetChainId(data []byte) (*big.Int, error) {
	out, err := safeProxyFactory.abi.Unpack("getChainId", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackProxyCreationCode is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x53e5d935.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function proxyCreationCode() pure returns(bytes)
func (safeProxyFactory *SafeProxyFactory) PackProxyCreationCode() []byte {
	enc, err := safeProxyFactory.abi.Pack("proxyCreationCode")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackProxyCreationCode is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x53e5d935.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function proxyCreationCode() pure returns(bytes)
func (safeProxyFactory *SafeProxyFactory) TryPackProxyCreationCode() ([]byte, error) {
	return safeProxyFactory.abi.Pack("proxyCreationCode")
}

// UnpackProxyCreationCode is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x53e5d935.
//
// Solidity: function proxyCreationCode() pure returns(bytes)
func (safeProxyFactory *SafeProxyFactory) UnpackProxyCreationCode(data []byte) ([]byte, error) {
	out, err := safeProxyFactory.abi.Unpack("proxyCreationCode", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// SafeProxyFactoryProxyCreation represents a ProxyCreation event raised by the SafeProxyFactory contract.
type SafeProxyFactoryProxyCreation struct {
	Proxy     common.Address
	Singleton common.Address
	Raw       *types.Log // Blockchain specific contextual infos
}

const SafeProxyFactoryProxyCreationEventName = "ProxyCreation"

// ContractEventName returns the user-defined event name.
func (SafeProxyFactoryProxyCreation) ContractEventName() string {
	return SafeProxyFactoryProxyCreationEventName
}

// UnpackProxyCreationEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ProxyCreation(address indexed proxy, address singleton)
func (safeProxyFactory *SafeProxyFactory) UnpackProxyCreationEvent(log *types.Log) (*SafeProxyFactoryProxyCreation, error) {
	event := "ProxyCreation"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != safeProxyFactory.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SafeProxyFactoryProxyCreation)
	if len(log.Data) > 0 {
		if err := safeProxyFactory.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range safeProxyFactory.abi.Events[event].Inputs {
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

// abi-sha256: dcd46ca6a3a40291b5f9db8e440b25e0f99c48f977fab4cf312f6a3884d03f60 abigen: v1.17.10
