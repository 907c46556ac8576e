// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.26;

/// @title TestUSDC
/// @notice Corridor's sandbox stand-in for USDC: a plain ERC-20 with 6 decimals whose supply only
/// the minter can grow. It exists so the sandbox chain (chain id 84532, local) has a real token
/// with real Transfer events for the faucet, Safe payments and the ledger indexer. On public
/// chains Corridor uses Circle's USDC instead; nothing here is meant to hold value.
contract TestUSDC {
    string public constant name = "USD Coin (Corridor test)";
    string public constant symbol = "USDC";
    uint8 public constant decimals = 6;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    /// @notice The only account allowed to mint (the relayer that pays the faucet).
    address public minter;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event MinterChanged(address indexed previousMinter, address indexed newMinter);

    modifier onlyMinter() {
        require(msg.sender == minter, "TestUSDC: caller is not the minter");
        _;
    }

    constructor(address initialMinter) {
        require(initialMinter != address(0), "TestUSDC: minter is the zero address");
        minter = initialMinter;
        emit MinterChanged(address(0), initialMinter);
    }

    /// @notice Hands minting to another account; the current minter gives it up.
    function setMinter(address newMinter) external onlyMinter {
        require(newMinter != address(0), "TestUSDC: minter is the zero address");
        emit MinterChanged(minter, newMinter);
        minter = newMinter;
    }

    /// @notice Creates amount base units (1 USDC = 1e6) for to. Emits Transfer from the zero address.
    function mint(address to, uint256 amount) external onlyMinter {
        require(to != address(0), "TestUSDC: mint to the zero address");
        totalSupply += amount;
        unchecked {
            // Cannot overflow: every balance is at most totalSupply, which was just checked.
            balanceOf[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        require(spender != address(0), "TestUSDC: approve to the zero address");
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice Moves amount from `from` using the caller's allowance; an allowance of
    /// type(uint256).max is treated as unlimited and never decreases.
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "TestUSDC: insufficient allowance");
            unchecked {
                allowance[from][msg.sender] = allowed - amount;
            }
        }
        _transfer(from, to, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 amount) private {
        require(to != address(0), "TestUSDC: transfer to the zero address");
        uint256 fromBalance = balanceOf[from];
        require(fromBalance >= amount, "TestUSDC: transfer amount exceeds balance");
        unchecked {
            // Cannot overflow or underflow: checked above, and the sum of balances is totalSupply.
            balanceOf[from] = fromBalance - amount;
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }
}
