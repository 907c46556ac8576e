package safe

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
)

var (
	ownerA   = common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	ownerB   = common.HexToAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC")
	ownerC   = common.HexToAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906")
	handler  = common.HexToAddress("0xfd0732Dc9E303f09fCEf3a7388Ad10A83459Ec99")
	testDepl = Deployment{
		Factory:   common.HexToAddress("0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67"),
		Singleton: common.HexToAddress("0x29fcB43b46531BcA003ddC8FCB67FFE91900C762"),
		// Any bytes stand in for SafeProxy's creation code here: the adapter tests check a
		// prediction against a real factory deployment.
		ProxyCreationCode: hexutil.MustDecode("0x608060405234801561001057600080fd5b50"),
	}
)

func config2of3() Config {
	return Config{Owners: []common.Address{ownerA, ownerB, ownerC}, Threshold: 2, FallbackHandler: handler, SaltNonce: big.NewInt(42)}
}

func TestInitializer_EncodesSetupWithSortedOwners(t *testing.T) {
	data, err := Initializer(config2of3())
	if err != nil {
		t.Fatal(err)
	}
	// setup(address[],uint256,address,bytes,address,address,uint256,address)
	if got := hexutil.Encode(data[:4]); got != "0xb63e800d" {
		t.Fatalf("selector = %s, want Safe.setup's 0xb63e800d", got)
	}
	args, err := parsedSetupABI.Methods["setup"].Inputs.Unpack(data[4:])
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		[]common.Address{ownerB, ownerA, ownerC}, big.NewInt(2), common.Address{}, []byte{},
		handler, common.Address{}, big.NewInt(0), common.Address{},
	}
	// Compared as text: big.Int's internal representation differs between equal values.
	if fmt.Sprint(args) != fmt.Sprint(want) || !reflect.DeepEqual(args[0], want[0]) {
		t.Errorf("setup args = %v, want %v", args, want)
	}
}

func TestInitializer_CarriesTheSetupDelegateCall(t *testing.T) {
	module := common.HexToAddress("0x00000000000000000000000000000000000c4a2d")
	c := config2of3()
	c.SetupTo, c.SetupData = module, crypto.Keccak256([]byte("enableOnSetup()"))[:4]
	data, err := Initializer(c)
	if err != nil {
		t.Fatal(err)
	}
	args, err := parsedSetupABI.Methods["setup"].Inputs.Unpack(data[4:])
	if err != nil {
		t.Fatal(err)
	}
	if args[2].(common.Address) != module || !reflect.DeepEqual(args[3], c.SetupData) {
		t.Errorf("setup to, data = %v, %x; want %s, %x", args[2], args[3], module.Hex(), c.SetupData)
	}
	plain, err := PredictAddress(testDepl, config2of3())
	if err != nil {
		t.Fatal(err)
	}
	withModule, err := PredictAddress(testDepl, c)
	if err != nil {
		t.Fatal(err)
	}
	if plain == withModule {
		t.Error("the setup delegate call does not change the address")
	}
}

func TestSalt_IsKeccakOfInitializerHashAndNonce(t *testing.T) {
	initializer := []byte{1, 2, 3}
	want := crypto.Keccak256Hash(append(crypto.Keccak256(initializer), common.LeftPadBytes(big.NewInt(42).Bytes(), 32)...))
	if got := Salt(initializer, big.NewInt(42)); got != want {
		t.Errorf("Salt = %s, want %s", got, want)
	}
}

func TestPredictAddress_IsCreate2OfFactory(t *testing.T) {
	c := config2of3()
	got, err := PredictAddress(testDepl, c)
	if err != nil {
		t.Fatal(err)
	}
	// CREATE2 by hand: keccak256(0xff ‖ factory ‖ salt ‖ keccak256(code ‖ uint256(singleton)))[12:].
	initializer, _ := Initializer(c)
	code := append(append([]byte{}, testDepl.ProxyCreationCode...), common.LeftPadBytes(testDepl.Singleton.Bytes(), 32)...)
	preimage := append([]byte{0xff}, testDepl.Factory.Bytes()...)
	preimage = append(preimage, Salt(initializer, c.SaltNonce).Bytes()...)
	preimage = append(preimage, crypto.Keccak256(code)...)
	if want := common.BytesToAddress(crypto.Keccak256(preimage)[12:]); got != want {
		t.Errorf("PredictAddress = %s, want %s", got, want)
	}
}

func TestCreate2_EIP1014Example0(t *testing.T) {
	// EIP-1014 example 0: deployer 0x0, salt 0x0, init code 0x00.
	got := crypto.CreateAddress2(common.Address{}, common.Hash{}, crypto.Keccak256([]byte{0}))
	if want := common.HexToAddress("0x4D1A2e2bB4F88F0250f26Ffff098B0b30B26BF38"); got != want {
		t.Errorf("CREATE2 = %s, want %s", got, want)
	}
}

func TestPredictAddress_DependsOnOwnerSetNotOrder(t *testing.T) {
	base, _ := PredictAddress(testDepl, config2of3())
	reordered := config2of3()
	reordered.Owners = []common.Address{ownerC, ownerA, ownerB}
	if got, _ := PredictAddress(testDepl, reordered); got != base {
		t.Errorf("reordering owners moved the address: %s vs %s", got, base)
	}
	changes := map[string]func(*Config, *Deployment){
		"threshold":        func(c *Config, _ *Deployment) { c.Threshold = 3 },
		"owners":           func(c *Config, _ *Deployment) { c.Owners = c.Owners[:2] },
		"salt nonce":       func(c *Config, _ *Deployment) { c.SaltNonce = big.NewInt(43) },
		"fallback handler": func(c *Config, _ *Deployment) { c.FallbackHandler = common.Address{} },
		"factory":          func(_ *Config, d *Deployment) { d.Factory = ownerA },
		"singleton":        func(_ *Config, d *Deployment) { d.Singleton = ownerA },
	}
	for name, change := range changes {
		c, d := config2of3(), testDepl
		change(&c, &d)
		if c.Threshold > len(c.Owners) {
			c.Threshold = len(c.Owners)
		}
		if got, err := PredictAddress(d, c); err != nil || got == base {
			t.Errorf("changing the %s did not change the address (err %v)", name, err)
		}
	}
}

func TestPredictAddress_NeedsProxyCode(t *testing.T) {
	if _, err := PredictAddress(Deployment{}, config2of3()); err == nil {
		t.Error("prediction without proxy creation code succeeded")
	}
}

func TestConfig_Validate(t *testing.T) {
	cases := map[string]struct {
		change func(*Config)
		field  string
	}{
		"no owners":        {func(c *Config) { c.Owners = nil; c.Threshold = 1 }, "owners"},
		"zero owner":       {func(c *Config) { c.Owners[1] = common.Address{} }, "owners[1].address"},
		"sentinel owner":   {func(c *Config) { c.Owners[0] = sentinelOwner }, "owners[0].address"},
		"duplicate owner":  {func(c *Config) { c.Owners[2] = ownerA }, "owners[2].address"},
		"threshold zero":   {func(c *Config) { c.Threshold = 0 }, "threshold"},
		"threshold high":   {func(c *Config) { c.Threshold = 4 }, "threshold"},
		"no salt":          {func(c *Config) { c.SaltNonce = nil }, "saltNonce"},
		"negative salt":    {func(c *Config) { c.SaltNonce = big.NewInt(-1) }, "saltNonce"},
		"too many owners":  {func(c *Config) { c.Owners = make([]common.Address, MaxOwners+1) }, "owners"},
		"oversized salt":   {func(c *Config) { c.SaltNonce = new(big.Int).Lsh(big.NewInt(1), 256) }, "saltNonce"},
		"threshold absent": {func(c *Config) { c.Threshold = -1 }, "threshold"},
	}
	if err := config2of3().Validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := config2of3()
			tc.change(&c)
			err := c.Validate()
			var domainErr *core.Error
			if !errors.As(err, &domainErr) || domainErr.Code != core.CodeValidationFailed {
				t.Fatalf("err = %v, want VALIDATION_FAILED", err)
			}
			fields := domainErr.Details["fields"].(map[string]any)
			if _, ok := fields[tc.field]; !ok {
				t.Errorf("fields = %v, want %s named", fields, tc.field)
			}
		})
	}
}

func TestSaltNonceFor_IsStablePerWallet(t *testing.T) {
	a1, a2, b := SaltNonceFor("wal_a"), SaltNonceFor("wal_a"), SaltNonceFor("wal_b")
	if a1.Cmp(a2) != 0 || a1.Cmp(b) == 0 || a1.BitLen() > 256 {
		t.Errorf("SaltNonceFor: %v %v %v", a1, a2, b)
	}
}
