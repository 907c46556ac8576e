// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.26;

/// @notice The two ERC-20 calls the escrow makes. Circle's USDC and TestUSDC both return true.
interface IClaimToken {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title ClaimEscrow
/// @notice Holds the money of Corridor's pending claims ("pay a phone number") until the
/// recipient redeems it or it goes back to the service. A claim is keyed by an opaque bytes32
/// id that the service draws from a CSPRNG, so nothing on chain links a claim to a phone number
/// or a person; its metadata hash covers server-generated ids only.
///
/// Life of a claim: None -> Funded (fund) -> Locked (lock, the recipient redeemed) ->
/// Released (release, paid out). A Funded claim is refundable from its expiry; a Locked one
/// only from expiry plus the grace period, so a payout in progress at the moment of expiry
/// wins over the expiry. An id that was never funded can be Canceled, a tombstone that makes a
/// late fund of the same id revert. Released, Refunded and Canceled are final, so a claim is
/// never both released and refunded.
///
/// The operator (the service's relayer) does everything except refund, which anyone may call:
/// a refund can only pay the settlement address fixed at deployment, so letting anyone trigger
/// it cannot misdirect money and keeps expired funds recoverable if the operator is down.
///
/// Revert reasons are short codes: CE:operator (caller is not the operator), CE:state (the
/// claim is not in a state the call accepts), CE:zero (a zero amount, id, address or hash),
/// CE:expired (fund with a past expiry, lock after expiry), CE:notExpired (refund of a funded
/// claim before its expiry), CE:grace (refund of a locked claim before expiry plus grace),
/// CE:token (the token address holds no contract), CE:transfer (the token returned false or
/// reverted without a reason; a token revert with a reason is passed on as it is).
contract ClaimEscrow {
    enum State {
        None,
        Funded,
        Locked,
        Released,
        Refunded,
        Canceled
    }

    /// @dev Three storage slots: expiresAt and state share the third.
    struct Claim {
        uint256 amount;
        bytes32 metadataHash;
        uint64 expiresAt;
        State state;
    }

    /// @notice The escrowed ERC-20 (USDC).
    address public immutable token;
    /// @notice The only account that may fund, lock, release, shorten expiry and cancel.
    address public immutable operator;
    /// @notice Where every refund goes: the service's own account on this chain.
    address public immutable settlement;
    /// @notice Seconds after expiry before a Locked claim becomes refundable.
    uint64 public immutable gracePeriod;

    mapping(bytes32 => Claim) private _claims;

    event ClaimFunded(bytes32 indexed claimId, uint256 amount, uint64 expiresAt, bytes32 metadataHash);
    event ClaimLocked(bytes32 indexed claimId);
    event ClaimReleased(bytes32 indexed claimId, address to, uint256 amount, bytes32 decisionHash);
    event ClaimExpiryShortened(bytes32 indexed claimId, uint64 expiresAt);
    event ClaimRefunded(bytes32 indexed claimId, address to, uint256 amount);
    event ClaimCanceled(bytes32 indexed claimId);

    modifier onlyOperator() {
        require(msg.sender == operator, "CE:operator");
        _;
    }

    constructor(address token_, address operator_, address settlement_, uint64 gracePeriodSeconds) {
        require(token_ != address(0) && operator_ != address(0) && settlement_ != address(0), "CE:zero");
        // A call to an address without code succeeds and returns nothing, which would make
        // every transfer look successful.
        require(token_.code.length > 0, "CE:token");
        token = token_;
        operator = operator_;
        settlement = settlement_;
        gracePeriod = gracePeriodSeconds;
    }

    /// @notice The contract's record of a claim (all zero for an unknown id).
    function claims(bytes32 claimId)
        external
        view
        returns (State state, uint256 amount, uint64 expiresAt, bytes32 metadataHash)
    {
        Claim storage c = _claims[claimId];
        return (c.state, c.amount, c.expiresAt, c.metadataHash);
    }

    /// @notice Escrows amount, pulled from the operator (which must have approved this
    /// contract), refundable to the settlement address from expiresAt.
    function fund(bytes32 claimId, uint256 amount, uint64 expiresAt, bytes32 metadataHash) external onlyOperator {
        require(claimId != bytes32(0) && amount > 0, "CE:zero");
        Claim storage c = _claims[claimId];
        require(c.state == State.None, "CE:state");
        require(expiresAt > block.timestamp, "CE:expired");
        c.state = State.Funded;
        c.amount = amount;
        c.expiresAt = expiresAt;
        c.metadataHash = metadataHash;
        emit ClaimFunded(claimId, amount, expiresAt, metadataHash);
        _pull(msg.sender, amount);
    }

    /// @notice Marks a funded claim as being paid out to its redeemer: from now on expiry alone
    /// no longer refunds it, only expiry plus the grace period.
    function lock(bytes32 claimId) external onlyOperator {
        Claim storage c = _claims[claimId];
        require(c.state == State.Funded, "CE:state");
        require(block.timestamp < c.expiresAt, "CE:expired");
        c.state = State.Locked;
        emit ClaimLocked(claimId);
    }

    /// @notice Pays a funded or locked claim to `to`, committing the hash of the policy
    /// decision that allowed it.
    function release(bytes32 claimId, address to, bytes32 decisionHash) external onlyOperator {
        require(to != address(0) && decisionHash != bytes32(0), "CE:zero");
        Claim storage c = _claims[claimId];
        require(c.state == State.Funded || c.state == State.Locked, "CE:state");
        uint256 amount = c.amount;
        c.state = State.Released;
        emit ClaimReleased(claimId, to, amount, decisionHash);
        _push(to, amount);
    }

    /// @notice Brings a funded (not locked) claim's expiry forward to now; never later. A claim
    /// already expired is left as it is, without an event.
    function expireNow(bytes32 claimId) external onlyOperator {
        Claim storage c = _claims[claimId];
        require(c.state == State.Funded, "CE:state");
        if (block.timestamp < c.expiresAt) {
            uint64 now_ = uint64(block.timestamp);
            c.expiresAt = now_;
            emit ClaimExpiryShortened(claimId, now_);
        }
    }

    /// @notice Returns an expired claim's money to the settlement address. Anyone may call it.
    function refund(bytes32 claimId) external {
        Claim storage c = _claims[claimId];
        if (c.state == State.Funded) {
            require(block.timestamp >= c.expiresAt, "CE:notExpired");
        } else if (c.state == State.Locked) {
            require(block.timestamp >= uint256(c.expiresAt) + gracePeriod, "CE:grace");
        } else {
            revert("CE:state");
        }
        uint256 amount = c.amount;
        c.state = State.Refunded;
        emit ClaimRefunded(claimId, settlement, amount);
        _push(settlement, amount);
    }

    /// @notice Tombstones an id that was never funded, so a fund arriving late reverts.
    function cancel(bytes32 claimId) external onlyOperator {
        require(claimId != bytes32(0), "CE:zero");
        Claim storage c = _claims[claimId];
        require(c.state == State.None, "CE:state");
        c.state = State.Canceled;
        emit ClaimCanceled(claimId);
    }

    function _pull(address from, uint256 amount) private {
        _callToken(abi.encodeCall(IClaimToken.transferFrom, (from, address(this), amount)));
    }

    function _push(address to, uint256 amount) private {
        _callToken(abi.encodeCall(IClaimToken.transfer, (to, amount)));
    }

    /// @dev Accepts a token that returns true or nothing. A token revert is passed on with the
    /// token's own reason (e.g. an insufficient allowance); a false return reverts with
    /// CE:transfer. Either way the whole call reverts, state changes included.
    function _callToken(bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok && ret.length > 0) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))), "CE:transfer");
    }
}
