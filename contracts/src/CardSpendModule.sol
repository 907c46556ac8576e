// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.26;

/// @notice The parts of a Safe v1.4.1 the module uses.
interface ICardSafe {
    function enableModule(address module) external;

    function execTransactionFromModuleReturnData(address to, uint256 value, bytes calldata data, uint8 operation)
        external
        returns (bool success, bytes memory returnData);
}

/// @notice The one ERC-20 call the module makes a Safe perform.
interface ICardToken {
    function transfer(address to, uint256 amount) external returns (bool);
}

/// @title CardSpendModule
/// @notice The standing permission behind Corridor's Safe-funded debit cards. Card spend is
/// approved at the till with no owner signature, then settled: the captured amount must leave
/// the card wallet's Safe for the issuer. A Safe that enabled this module lets the operator (the
/// service's relayer) move USDC out of it, and nothing else:
///   - only the token fixed at deployment (USDC),
///   - only to the settlement address fixed at deployment (the service's own account),
///   - each settlement reference once (a replayed settlement reverts),
///   - only while the Safe keeps the module enabled: the Safe's owners can remove it at any time
///     with a Safe transaction calling disableModule.
/// The module holds no funds and cannot change a Safe's owners, threshold or modules.
///
/// A Safe enables it in its own setup: Safe.setup(..., to = module, data = enableOnSetup(), ...)
/// delegatecalls enableOnSetup, which then calls the Safe's enableModule from the Safe itself.
///
/// Revert reasons are short codes: CSM:operator (caller is not the operator), CSM:zero (a zero
/// amount, reference or address), CSM:token (the token address holds no contract), CSM:noSafe (no contract at the Safe's address), CSM:refUsed (the reference was already settled), CSM:direct
/// (enableOnSetup called other than by delegatecall), CSM:transfer (the token call failed without a
/// reason or returned false). A revert of the Safe (GS104: the module is not enabled) or of the
/// token (its balance is too low) is passed on with its own reason.
contract CardSpendModule {
    /// @dev Enum.Operation.Call of the Safe contracts.
    uint8 private constant CALL = 0;

    /// @notice The only account that may settle.
    address public immutable operator;
    /// @notice The token settlements move (USDC).
    address public immutable token;
    /// @notice Where every settlement goes.
    address public immutable settlement;
    /// @notice This contract's own address, fixed at deployment: in a delegatecall address(this)
    /// is the caller, so enableOnSetup can tell the two apart.
    address public immutable self;

    struct Settlement {
        address safe;
        uint256 amount;
    }

    mapping(bytes32 => Settlement) private _settlements;

    /// @notice One settlement: amount of the token moved from safe to the settlement address.
    event CardSpendSettled(address indexed safe, bytes32 indexed ref, uint256 amount);

    constructor(address operator_, address token_, address settlement_) {
        require(operator_ != address(0) && token_ != address(0) && settlement_ != address(0), "CSM:zero");
        // A call to an address without code succeeds and returns nothing.
        require(token_.code.length > 0, "CSM:token");
        operator = operator_;
        token = token_;
        settlement = settlement_;
        self = address(this);
    }

    /// @notice Enables this module on the Safe being set up. Only meaningful as the `to`/`data`
    /// of Safe.setup, which delegatecalls it: address(this) is then the Safe, and the call below
    /// comes from the Safe itself, which enableModule requires.
    function enableOnSetup() external {
        require(address(this) != self, "CSM:direct");
        ICardSafe(address(this)).enableModule(self);
    }

    /// @notice Moves amount of the token from safe to the settlement address under ref, once.
    function settle(address safe, uint256 amount, bytes32 ref) external {
        require(msg.sender == operator, "CSM:operator");
        require(safe != address(0) && amount > 0 && ref != bytes32(0), "CSM:zero");
        require(safe.code.length > 0, "CSM:noSafe");
        Settlement storage s = _settlements[ref];
        require(s.safe == address(0), "CSM:refUsed");
        s.safe = safe;
        s.amount = amount;
        emit CardSpendSettled(safe, ref, amount);
        (bool ok, bytes memory ret) = ICardSafe(safe).execTransactionFromModuleReturnData(
            token, 0, abi.encodeCall(ICardToken.transfer, (settlement, amount)), CALL
        );
        if (!ok && ret.length > 0) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        require(ok && ret.length == 32 && abi.decode(ret, (bool)), "CSM:transfer");
    }

    /// @notice The settlement recorded under ref (zero safe and amount when none).
    function settlements(bytes32 ref) external view returns (address safe, uint256 amount) {
        Settlement storage s = _settlements[ref];
        return (s.safe, s.amount);
    }
}
