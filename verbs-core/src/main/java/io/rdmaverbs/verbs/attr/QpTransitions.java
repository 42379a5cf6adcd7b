package io.rdmaverbs.verbs.attr;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The kernel's QP state-transition table ({@code qp_state_table} and {@code ib_modify_qp_is_ok} in the
 * kernel's {@code drivers/infiniband/core/verbs.c}): which transitions exist and, per QP type, which
 * attributes each requires and which it allows. {@code ibv_modify_qp(3)} fails with {@code EINVAL} when a
 * required attribute is missing or any attribute is outside required + optional. XRC_SEND is the
 * kernel's XRC_INI, XRC_RECV its XRC_TGT.
 *
 * <p>Provider-neutral: the resource graph checks a modification against it before calling the
 * provider (so it can say which attribute is missing), and the simulated provider answers with it as
 * the kernel does. Passing this check does not make a modification valid: the device still judges the
 * values (a path MTU above the port's, an RDMA read depth above the device's), and its answer stands.
 *
 * <p>Kernel 6.1 has no RESET→ERR entry (observed: EINVAL on rxe), although older kernels had one.
 */
public final class QpTransitions {

    /**
     * Why the table rejects a modification.
     *
     * @param type the QP's type
     * @param current the state the QP is in
     * @param next the state asked for
     * @param noSuchTransition whether the table has no {@code current → next} entry at all
     * @param missing attributes the transition requires that the modification does not set
     * @param notAllowed attributes the modification sets that the transition does not take
     */
    public record Rejection(QpType type, QpState current, QpState next, boolean noSuchTransition,
            Set<QpAttributeMask> missing, Set<QpAttributeMask> notAllowed) {

        public Rejection {
            missing = Collections.unmodifiableSet(copy(missing));
            notAllowed = Collections.unmodifiableSet(copy(notAllowed));
        }

        /** A sentence naming the transition and the attributes at fault. */
        public String explanation() {
            if (noSuchTransition) {
                return type + " QPs cannot go from " + current + " to " + next
                        + " (no such transition in the kernel's QP state table)";
            }
            StringBuilder sb = new StringBuilder().append(current).append("->").append(next).append(" (")
                    .append(type).append(" QP)");
            if (!missing.isEmpty()) {
                sb.append(" requires ").append(missing).append(", which the modification does not set");
            }
            if (!notAllowed.isEmpty()) {
                sb.append(missing.isEmpty() ? " does not take " : "; and it does not take ").append(notAllowed);
            }
            return sb.toString();
        }

        private static EnumSet<QpAttributeMask> copy(Set<QpAttributeMask> set) {
            return set.isEmpty() ? EnumSet.noneOf(QpAttributeMask.class) : EnumSet.copyOf(set);
        }
    }

    private record Rule(Map<QpType, Integer> required, Map<QpType, Integer> optional) {
    }

    private static final int STATE = QpAttributeMask.STATE.bit();
    private static final int CUR_STATE = QpAttributeMask.CUR_STATE.bit();
    private static final int EN_SQD_ASYNC_NOTIFY = QpAttributeMask.EN_SQD_ASYNC_NOTIFY.bit();
    private static final int ACCESS_FLAGS = QpAttributeMask.ACCESS_FLAGS.bit();
    private static final int PKEY_INDEX = QpAttributeMask.PKEY_INDEX.bit();
    private static final int PORT = QpAttributeMask.PORT.bit();
    private static final int QKEY = QpAttributeMask.QKEY.bit();
    private static final int AV = QpAttributeMask.AV.bit();
    private static final int PATH_MTU = QpAttributeMask.PATH_MTU.bit();
    private static final int TIMEOUT = QpAttributeMask.TIMEOUT.bit();
    private static final int RETRY_CNT = QpAttributeMask.RETRY_CNT.bit();
    private static final int RNR_RETRY = QpAttributeMask.RNR_RETRY.bit();
    private static final int RQ_PSN = QpAttributeMask.RQ_PSN.bit();
    private static final int MAX_QP_RD_ATOMIC = QpAttributeMask.MAX_QP_RD_ATOMIC.bit();
    private static final int ALT_PATH = QpAttributeMask.ALT_PATH.bit();
    private static final int MIN_RNR_TIMER = QpAttributeMask.MIN_RNR_TIMER.bit();
    private static final int SQ_PSN = QpAttributeMask.SQ_PSN.bit();
    private static final int MAX_DEST_RD_ATOMIC = QpAttributeMask.MAX_DEST_RD_ATOMIC.bit();
    private static final int PATH_MIG_STATE = QpAttributeMask.PATH_MIG_STATE.bit();
    private static final int DEST_QPN = QpAttributeMask.DEST_QPN.bit();

    private static final Map<QpState, Map<QpState, Rule>> TABLE = new EnumMap<>(QpState.class);

    static {
        RuleBuilder free = rule(); // valid with no attribute but the state
        int connectedInit = PKEY_INDEX | PORT | ACCESS_FLAGS;
        transition(QpState.RESET, QpState.RESET, free);
        transition(QpState.RESET, QpState.INIT, rule()
                .require(QpType.UD, PKEY_INDEX | PORT | QKEY)
                .require(QpType.UC, connectedInit).require(QpType.RC, connectedInit)
                .require(QpType.XRC_SEND, connectedInit).require(QpType.XRC_RECV, connectedInit));

        transition(QpState.INIT, QpState.RESET, free);
        transition(QpState.INIT, QpState.ERR, free);
        transition(QpState.INIT, QpState.INIT, rule()
                .allow(QpType.UD, PKEY_INDEX | PORT | QKEY)
                .allow(QpType.UC, connectedInit).allow(QpType.RC, connectedInit)
                .allow(QpType.XRC_SEND, connectedInit).allow(QpType.XRC_RECV, connectedInit));
        int rtrConnected = AV | PATH_MTU | DEST_QPN | RQ_PSN;
        int rtrResponder = rtrConnected | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER;
        int rtrOptional = ALT_PATH | ACCESS_FLAGS | PKEY_INDEX;
        transition(QpState.INIT, QpState.RTR, rule()
                .require(QpType.UC, rtrConnected).require(QpType.RC, rtrResponder)
                .require(QpType.XRC_SEND, rtrConnected).require(QpType.XRC_RECV, rtrResponder)
                .allow(QpType.UD, PKEY_INDEX | QKEY)
                .allow(QpType.UC, rtrOptional).allow(QpType.RC, rtrOptional)
                .allow(QpType.XRC_SEND, rtrOptional).allow(QpType.XRC_RECV, rtrOptional));

        int rtsRequester = TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC;
        transition(QpState.RTR, QpState.RESET, free);
        transition(QpState.RTR, QpState.ERR, free);
        transition(QpState.RTR, QpState.RTS, rule()
                .require(QpType.UD, SQ_PSN).require(QpType.UC, SQ_PSN).require(QpType.RC, rtsRequester)
                .require(QpType.XRC_SEND, rtsRequester).require(QpType.XRC_RECV, TIMEOUT | SQ_PSN)
                .allow(QpType.UD, CUR_STATE | QKEY)
                .allow(QpType.UC, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE)
                .allow(QpType.RC, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE)
                .allow(QpType.XRC_SEND, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE)
                .allow(QpType.XRC_RECV, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE));

        RuleBuilder rtsToRts = rule()
                .allow(QpType.UD, CUR_STATE | QKEY)
                .allow(QpType.UC, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE)
                .allow(QpType.RC, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER)
                .allow(QpType.XRC_SEND, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE)
                .allow(QpType.XRC_RECV, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER);
        transition(QpState.RTS, QpState.RESET, free);
        transition(QpState.RTS, QpState.ERR, free);
        transition(QpState.RTS, QpState.RTS, rtsToRts);
        transition(QpState.RTS, QpState.SQD, rule()
                .allow(QpType.UD, EN_SQD_ASYNC_NOTIFY).allow(QpType.UC, EN_SQD_ASYNC_NOTIFY)
                .allow(QpType.RC, EN_SQD_ASYNC_NOTIFY).allow(QpType.XRC_SEND, EN_SQD_ASYNC_NOTIFY)
                .allow(QpType.XRC_RECV, EN_SQD_ASYNC_NOTIFY));

        transition(QpState.SQD, QpState.RESET, free);
        transition(QpState.SQD, QpState.ERR, free);
        transition(QpState.SQD, QpState.RTS, rtsToRts);
        transition(QpState.SQD, QpState.SQD, rule()
                .allow(QpType.UD, PKEY_INDEX | QKEY)
                .allow(QpType.UC, AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE)
                .allow(QpType.RC, PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC
                        | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE)
                .allow(QpType.XRC_SEND, PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | ALT_PATH
                        | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE)
                .allow(QpType.XRC_RECV, PORT | AV | TIMEOUT | MAX_DEST_RD_ATOMIC | ALT_PATH | ACCESS_FLAGS
                        | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE));

        transition(QpState.SQE, QpState.RESET, free);
        transition(QpState.SQE, QpState.ERR, free);
        transition(QpState.SQE, QpState.RTS, rule()
                .allow(QpType.UD, CUR_STATE | QKEY).allow(QpType.UC, CUR_STATE | ACCESS_FLAGS));

        transition(QpState.ERR, QpState.RESET, free);
        transition(QpState.ERR, QpState.ERR, free);
    }

    private QpTransitions() {
    }

    /**
     * {@code ib_modify_qp_is_ok}: whether a {@code type} QP in {@code current} takes {@code modification}
     * (its target state, or {@code current} when the modification sets no state), and if not, why.
     */
    public static Optional<Rejection> check(QpState current, QpType type, QpModification modification) {
        int mask = modification.maskBits();
        QpState next = modification.has(QpAttributeMask.STATE) ? modification.state() : current;
        Rule rule = rule(current, next);
        if (rule == null) {
            return Optional.of(new Rejection(type, current, next, true, Set.of(), Set.of()));
        }
        int required = rule.required.getOrDefault(type, 0);
        int taken = required | rule.optional.getOrDefault(type, 0) | STATE;
        // ib_modify_qp_is_ok refuses CUR_STATE (the state the caller says the QP is in) from any state but
        // RTR, RTS, SQD and SQE, whatever the entry allows.
        boolean curStateTaken = current == QpState.RTR || current == QpState.RTS || current == QpState.SQD
                || current == QpState.SQE;
        int notAllowed = (mask & ~taken) | (curStateTaken ? 0 : mask & CUR_STATE);
        int missing = required & ~mask;
        if (missing == 0 && notAllowed == 0) {
            return Optional.empty();
        }
        return Optional.of(new Rejection(type, current, next, false, attributes(missing), attributes(notAllowed)));
    }

    private static Set<QpAttributeMask> attributes(int mask) {
        Set<QpAttributeMask> out = EnumSet.noneOf(QpAttributeMask.class);
        for (QpAttributeMask a : QpAttributeMask.values()) {
            if ((mask & a.bit()) != 0) {
                out.add(a);
            }
        }
        return out;
    }

    private static @Nullable Rule rule(QpState current, QpState next) {
        Map<QpState, Rule> row = TABLE.get(current);
        return row == null ? null : row.get(next);
    }

    private static void transition(QpState from, QpState to, RuleBuilder rule) {
        transition(from, to, rule.build());
    }

    private static void transition(QpState from, QpState to, Rule rule) {
        TABLE.computeIfAbsent(from, s -> new EnumMap<>(QpState.class)).put(to, rule);
    }

    private static RuleBuilder rule() {
        return new RuleBuilder();
    }

    private static final class RuleBuilder {
        private final Map<QpType, Integer> required = new EnumMap<>(QpType.class);
        private final Map<QpType, Integer> optional = new EnumMap<>(QpType.class);

        RuleBuilder require(QpType type, int mask) {
            required.put(type, mask);
            return this;
        }

        RuleBuilder allow(QpType type, int mask) {
            optional.put(type, mask);
            return this;
        }

        Rule build() {
            return new Rule(Map.copyOf(required), Map.copyOf(optional));
        }
    }
}
