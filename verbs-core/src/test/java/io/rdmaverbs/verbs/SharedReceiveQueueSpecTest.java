package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaverbs.verbs.attr.SrqType;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SharedReceiveQueueSpecTest {

    private final Mlx5Graph graph = new Mlx5Graph();
    private final Verbs verbs = graph.verbs;
    private final DeviceContext ctx = graph.ctx;
    private final ProtectionDomain pd = graph.pd;
    private final CompletionQueue cq = graph.cq;

    @AfterEach
    void closeGraph() {
        graph.close();
    }

    @Test
    void basicAsksForOneScatterGatherEntryAndNoLimit() {
        assertThat(SharedReceiveQueueSpec.basic(64))
                .isEqualTo(new SharedReceiveQueueSpec(SrqType.BASIC, null, null, 64, 1, 0));
        assertThat(SharedReceiveQueueSpec.basic(64).withMaxSge(2).withLimit(8))
                .isEqualTo(new SharedReceiveQueueSpec(SrqType.BASIC, null, null, 64, 2, 8));
    }

    @Test
    void outOfRangeSizesAreRejectedNamingTheField() {
        assertThatThrownBy(() -> SharedReceiveQueueSpec.basic(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxWr must be at least 1");
        assertThatThrownBy(() -> SharedReceiveQueueSpec.basic(16).withMaxSge(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxSge must be at least 1");
        assertThatThrownBy(() -> SharedReceiveQueueSpec.basic(16).withLimit(17))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be 0..maxWr (16), was 17");
        assertThatThrownBy(() -> SharedReceiveQueueSpec.basic(16).withLimit(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("limit must be 0..maxWr");
    }

    @Test
    void anXrcSrqNeedsItsDomainAndCqAndTakesNoLimit() {
        XrcDomain xrcd = ctx.openXrcDomain(XrcDomainSpec.privateDomain(), "xrcd");
        assertThatThrownBy(() -> new SharedReceiveQueueSpec(SrqType.XRC, null, cq, 16, 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("xrcDomain is missing");
        assertThatThrownBy(() -> new SharedReceiveQueueSpec(SrqType.XRC, xrcd, null, 16, 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("completionQueue is missing");
        assertThatThrownBy(() -> SharedReceiveQueueSpec.xrc(xrcd, cq, 16).withLimit(4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("limit applies to basic SRQs");
    }

    @Test
    void aBasicSrqHasNoXrcDomainOrCqOfItsOwn() {
        assertThatThrownBy(() -> new SharedReceiveQueueSpec(SrqType.BASIC, null, cq, 16, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("xrcDomain and completionQueue belong to XRC SRQs");
    }

    @Test
    void theDeviceBoundsAreCheckedWhenTheSrqIsCreated() {
        int maxSrqWr = ctx.attributes().maxSrqWr();
        int maxSrqSge = ctx.attributes().maxSrqSge();
        int before = verbs.resources().size();
        assertThatThrownBy(() -> pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(maxSrqWr + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_srq_wr");
        assertThatThrownBy(() -> pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16).withMaxSge(maxSrqSge + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_srq_sge");
        assertThat(verbs.resources()).hasSize(before);
    }

    @Test
    void anXrcSrqIsCreatedInThePdAndDependsOnItsDomainAndCq() {
        XrcDomain xrcd = ctx.openXrcDomain(XrcDomainSpec.privateDomain(), "xrcd");
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.xrc(xrcd, cq, 16), "xsrq");
        assertThat(srq.type()).isEqualTo(SrqType.XRC);
        assertThat(srq.protectionDomain()).isSameAs(pd);
        assertThat(srq.xrcDomain()).isSameAs(xrcd);
        assertThat(srq.srqNum()).isPositive();
        assertThat(xrcd.dependents()).contains(srq);
        assertThat(cq.dependents()).contains(srq);
    }

    @Test
    void anXrcSrqOnADomainOfAnotherContextIsRefused() {
        DeviceContext other = verbs.openDevice("mlx5_0", "other");
        XrcDomain foreign = other.openXrcDomain(XrcDomainSpec.privateDomain());
        assertThatThrownBy(() -> pd.createSharedReceiveQueue(SharedReceiveQueueSpec.xrc(foreign, cq, 16)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("belongs to device context");
        assertThat(foreign.dependents()).isEmpty();
    }
}
