// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.26;

/// @notice The two ERC-20 calls a checkout deposit makes.
interface ICheckoutToken {
    function balanceOf(address account) external view returns (uint256);

    function transfer(address to, uint256 amount) external returns (bool);

    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title CheckoutDeposit
/// @notice The per-checkout deposit address. A payer sends USDC to it before it has code; the
/// factory deploys it at that same address (CREATE2) when it sweeps, and may sweep it again
/// later (a late or second transfer). Only the factory that created it can move what it holds.
contract CheckoutDeposit {
    /// @notice The factory that created this deposit, the only account that may sweep it.
    address public immutable factory;

    constructor() {
        factory = msg.sender;
    }

    /// @notice Moves this deposit's whole balance of token to `to`; returns the amount moved.
    function sweep(address token, address to) external returns (uint256 amount) {
        require(msg.sender == factory, "CDF:factory");
        amount = ICheckoutToken(token).balanceOf(address(this));
        if (amount > 0) {
            require(ICheckoutToken(token).transfer(to, amount), "CDF:transfer");
        }
    }
}

/// @title CheckoutDepositFactory
/// @notice Fresh deposit addresses for Corridor's hosted checkout. Each checkout's address is
/// CREATE2(this factory, salt, keccak256(CheckoutDeposit's creation code)), with the salt
/// derived from the checkout's id (keccak256 of the id's bytes), so the service knows the
/// address before anything is deployed. The operator (the service's relayer) sweeps a deposit's
/// USDC to the settlement address fixed at deployment (the service's own account), and nowhere
/// else.
///
/// Refunds are paid through the factory so that the chain, not the service's memory, guards
/// them: refund(refundId, to, amount) moves amount of the token from the settlement address to
/// `to` (the settlement approves this factory as a spender) and records refundId; a refundId
/// seen before reverts, so a refund retried after a crash can never pay twice. Only the
/// operator may refund; refundOf(refundId) shows what was paid.
///
/// Revert reasons are short codes: CDF:operator (caller is not the operator), CDF:zero (a zero
/// address, salt, refund id or amount), CDF:token (the token address holds no contract),
/// CDF:factory (a deposit swept by another account), CDF:refunded (the refund id was already
/// paid), CDF:transfer (the token's transfer returned false). A token revert (balance or
/// allowance too low) is passed on with its own reason.
contract CheckoutDepositFactory {
    /// @notice The only account that may sweep.
    address public immutable operator;
    /// @notice The token swept (USDC).
    address public immutable token;
    /// @notice Where every sweep goes.
    address public immutable settlement;

    struct Refund {
        address to;
        uint256 amount;
    }

    mapping(bytes32 => Refund) private _refunds;

    /// @notice One sweep: amount of the token moved from the deposit at salt to the settlement.
    event CheckoutSwept(bytes32 indexed salt, address indexed deposit, uint256 amount);

    /// @notice One refund: amount of the token moved from the settlement to `to`, under refundId.
    event Refunded(bytes32 indexed refundId, address indexed to, uint256 amount);

    constructor(address operator_, address token_, address settlement_) {
        require(operator_ != address(0) && token_ != address(0) && settlement_ != address(0), "CDF:zero");
        require(token_.code.length > 0, "CDF:token");
        operator = operator_;
        token = token_;
        settlement = settlement_;
    }

    /// @notice keccak256 of CheckoutDeposit's creation code, the third input of every address.
    function depositCodeHash() public pure returns (bytes32) {
        return keccak256(type(CheckoutDeposit).creationCode);
    }

    /// @notice The deposit address of salt, deployed or not.
    function depositAddress(bytes32 salt) public view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, depositCodeHash())))));
    }

    /// @notice Deploys the deposit of salt when it has no code yet and moves its whole token
    /// balance to the settlement address; returns the amount moved.
    function sweep(bytes32 salt) external returns (uint256 amount) {
        require(msg.sender == operator, "CDF:operator");
        require(salt != bytes32(0), "CDF:zero");
        address deposit = depositAddress(salt);
        if (deposit.code.length == 0) {
            new CheckoutDeposit{salt: salt}();
        }
        amount = CheckoutDeposit(deposit).sweep(token, settlement);
        emit CheckoutSwept(salt, deposit, amount);
    }

    /// @notice Pays amount of the token from the settlement address to `to` under refundId,
    /// once: a refundId already paid reverts with CDF:refunded.
    function refund(bytes32 refundId, address to, uint256 amount) external {
        require(msg.sender == operator, "CDF:operator");
        require(refundId != bytes32(0) && to != address(0) && amount > 0, "CDF:zero");
        Refund storage r = _refunds[refundId];
        require(r.to == address(0), "CDF:refunded");
        r.to = to;
        r.amount = amount;
        emit Refunded(refundId, to, amount);
        require(ICheckoutToken(token).transferFrom(settlement, to, amount), "CDF:transfer");
    }

    /// @notice The refund paid under refundId (zero address and amount when none).
    function refundOf(bytes32 refundId) external view returns (address to, uint256 amount) {
        Refund storage r = _refunds[refundId];
        return (r.to, r.amount);
    }
}
