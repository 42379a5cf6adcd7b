package io.rdmaverbs.verbs.provider.simulated;

import java.util.EnumMap;
import java.util.Map;

import io.rdmaverbs.verbs.attr.QpAttributeMask;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;

import org.jspecify.annotations.Nullable;

/**
 * The kernel's {@code qp_state_table} and {@code ib_modify_qp_is_ok} (drivers/infiniband/core/verbs.c):
 * which transitions exist, and per QP type which attributes each requires and which it allows. A
 * modification with a required attribute missing, or any attribute outside required + optional, fails
 * with EINVAL. XRC_SEND is the kernel's XRC_INI, XRC_RECV its XRC_TGT.
 *
 * <p>Kernel 6.1 has no RESET→ERR entry (observed: EINVAL on rxe), although older kernels had one.
 */
final class QpTransitions {

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

    /** {@code ib_modify_qp_is_ok}. */
    static boolean allowed(QpState current, QpState next, QpType type, int mask) {
        if ((mask & CUR_STATE) != 0 && current != QpState.RTR && current != QpState.RTS && current != QpState.SQD
                && current != QpState.SQE) {
            return false;
        }
        Rule rule = rule(current, next);
        if (rule == null) {
            return false;
        }
        int required = rule.required.getOrDefault(type, 0);
        int optional = rule.optional.getOrDefault(type, 0);
        return (mask & required) == required && (mask & ~(required | optional | STATE)) == 0;
    }

    /** The attributes a transition requires for a type, for error messages; null if the transition does not exist. */
    static @Nullable String describe(QpState current, QpState next, QpType type) {
        Rule rule = rule(current, next);
        if (rule == null) {
            return null;
        }
        return "requires " + names(rule.required.getOrDefault(type, 0)) + ", allows "
                + names(rule.optional.getOrDefault(type, 0));
    }

    private static String names(int mask) {
        StringBuilder sb = new StringBuilder("{");
        for (QpAttributeMask a : QpAttributeMask.values()) {
            if ((mask & a.bit()) != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(a);
            }
        }
        return sb.append('}').toString();
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
