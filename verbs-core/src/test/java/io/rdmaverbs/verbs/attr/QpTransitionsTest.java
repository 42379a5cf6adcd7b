package io.rdmaverbs.verbs.attr;

import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The kernel's QP state table as the graph and the simulator read it: what is missing, what is not taken. */
class QpTransitionsTest {

    private static final Set<AccessFlag> NO_ACCESS = EnumSet.noneOf(AccessFlag.class);
    private static final AddressVector PATH = AddressVector.infiniband(1, 7);

    @Test
    void rcResetToInitWithoutAccessFlagsNamesOnlyTheMissingAttribute() {
        QpTransitions.Rejection r = QpTransitions.check(QpState.RESET, QpType.RC,
                QpModification.to(QpState.INIT).port(1).pkeyIndex(0)).orElseThrow();

        assertThat(r.noSuchTransition()).isFalse();
        assertThat(r.missing()).containsExactly(QpAttributeMask.ACCESS_FLAGS);
        assertThat(r.notAllowed()).isEmpty();
        assertThat(r.explanation()).isEqualTo(
                "RESET->INIT (RC QP) requires [ACCESS_FLAGS], which the modification does not set");
    }

    @Test
    void anAttributeTheTransitionDoesNotTakeIsNamedAsNotAllowed() {
        QpTransitions.Rejection r = QpTransitions.check(QpState.RESET, QpType.RC,
                QpModification.init(1, 0, NO_ACCESS).qkey(5)).orElseThrow();

        assertThat(r.missing()).isEmpty();
        assertThat(r.notAllowed()).containsExactly(QpAttributeMask.QKEY);
        assertThat(r.explanation()).isEqualTo("RESET->INIT (RC QP) does not take [QKEY]");
    }

    @Test
    void missingAndNotAllowedAttributesAreBothNamed() {
        QpTransitions.Rejection r = QpTransitions.check(QpState.RESET, QpType.UD,
                QpModification.init(1, 0, NO_ACCESS)).orElseThrow();

        assertThat(r.missing()).containsExactly(QpAttributeMask.QKEY);
        assertThat(r.notAllowed()).containsExactly(QpAttributeMask.ACCESS_FLAGS);
        assertThat(r.explanation()).isEqualTo("RESET->INIT (UD QP) requires [QKEY], which the modification does not "
                + "set; and it does not take [ACCESS_FLAGS]");
    }

    @Test
    void skippingAStateIsATransitionTheTableDoesNotHave() {
        QpTransitions.Rejection r = QpTransitions.check(QpState.RESET, QpType.RC,
                QpModification.readyToReceive(QpType.RC, PATH, 5, 0, Mtu.MTU_1024)).orElseThrow();

        assertThat(r.noSuchTransition()).isTrue();
        assertThat(r.explanation()).startsWith("RC QPs cannot go from RESET to RTR");
    }

    @Test
    void resetToErrorIsNotATransitionOnKernel61ButInitToErrorIs() {
        assertThat(QpTransitions.check(QpState.RESET, QpType.RC, QpModification.to(QpState.ERR))).isPresent();
        assertThat(QpTransitions.check(QpState.INIT, QpType.RC, QpModification.to(QpState.ERR))).isEmpty();
    }

    @Test
    void theFactoryModificationsPassForEveryTypeFromTheStateTheyLeave() {
        for (QpType type : QpType.values()) {
            QpModification init = type == QpType.UD ? QpModification.initDatagram(1, 0, 0x11111111)
                    : QpModification.init(1, 0, NO_ACCESS);
            assertThat(QpTransitions.check(QpState.RESET, type, init)).as("%s RESET->INIT", type).isEmpty();
            assertThat(QpTransitions.check(QpState.INIT, type,
                    QpModification.readyToReceive(type, PATH, 5, 0, Mtu.MTU_1024))).as("%s INIT->RTR", type).isEmpty();
            assertThat(QpTransitions.check(QpState.RTR, type, QpModification.readyToSend(type, 0)))
                    .as("%s RTR->RTS", type).isEmpty();
        }
    }

    @Test
    void theRequesterAttributesOfRtsAreMissingFromAnRcRtrToRtsWithOnlyTheSendPsn() {
        QpTransitions.Rejection r = QpTransitions.check(QpState.RTR, QpType.RC,
                QpModification.readyToSend(QpType.UC, 0)).orElseThrow();

        assertThat(r.missing()).containsExactlyInAnyOrder(QpAttributeMask.TIMEOUT, QpAttributeMask.RETRY_CNT,
                QpAttributeMask.RNR_RETRY, QpAttributeMask.MAX_QP_RD_ATOMIC);
    }
}
