package io.rdmaverbs.spring.boot.resources;

import java.util.Map;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.resources.CheckedDeclarations.Declaration;
import io.rdmaverbs.verbs.ResourceKind;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class CheckedDeclarationsTests {

    private static final String MAIN = "rdma.verbs.devices.main";

    @Test
    void nothingDeclaredIsNothingToCreate() {
        assertThat(declarations(Map.of()).isEmpty()).isTrue();
    }

    @Test
    void listsParentsBeforeTheResourcesCreatedFromThem() {
        CheckedDeclarations d = declarations(Map.of(
                MAIN + ".queue-pairs.qp0.protection-domain", "pd0",
                MAIN + ".queue-pairs.qp0.send-cq", "cq0",
                MAIN + ".queue-pairs.qp0.recv-cq", "cq0",
                MAIN + ".queue-pairs.qp0.srq", "srq0",
                MAIN + ".shared-receive-queues.srq0.protection-domain", "pd0",
                MAIN + ".completion-queues.cq0.channel", "events",
                MAIN + ".completion-channels", "events",
                MAIN + ".protection-domains", "pd0"));
        assertThat(d.inCreationOrder()).extracting(Declaration::key)
                .containsExactly("main", "pd0", "events", "cq0", "srq0", "qp0");
        Declaration qp = d.find("qp0").orElseThrow();
        assertThat(qp.kind()).isEqualTo(ResourceKind.QUEUE_PAIR);
        assertThat(qp.property()).isEqualTo(MAIN + ".queue-pairs.qp0");
        assertThat(qp.parents()).containsExactly("main", "pd0", "cq0", "srq0");
        assertThat(d.find("main").orElseThrow().parents()).isEmpty();
    }

    @Test
    void xrcReceiveQueuePairBelongsToItsXrcDomainOnly() {
        CheckedDeclarations d = declarations(Map.of(
                MAIN + ".xrc-domains.x.create", "true",
                MAIN + ".queue-pairs.target.type", "xrc-recv",
                MAIN + ".queue-pairs.target.xrc-domain", "x"));
        assertThat(d.find("target").orElseThrow().parents()).containsExactly("main", "x");
        assertThatExceptionOfType(InvalidDeclarationException.class).isThrownBy(() -> declarations(Map.of(
                MAIN + ".protection-domains", "pd0",
                MAIN + ".xrc-domains.x.create", "true",
                MAIN + ".queue-pairs.target.type", "xrc-recv",
                MAIN + ".queue-pairs.target.xrc-domain", "x",
                MAIN + ".queue-pairs.target.protection-domain", "pd0")))
                .satisfies(e -> assertThat(e.property()).isEqualTo(MAIN + ".queue-pairs.target.protection-domain"));
    }

    @Test
    void xrcSendQueuePairHasNoReceiveQueue() {
        assertThatExceptionOfType(InvalidDeclarationException.class).isThrownBy(() -> declarations(Map.of(
                MAIN + ".protection-domains", "pd0",
                MAIN + ".completion-queues.cq0.entries", "16",
                MAIN + ".queue-pairs.sender.type", "xrc-send",
                MAIN + ".queue-pairs.sender.protection-domain", "pd0",
                MAIN + ".queue-pairs.sender.send-cq", "cq0",
                MAIN + ".queue-pairs.sender.recv-cq", "cq0")))
                .satisfies(e -> assertThat(e.property()).isEqualTo(MAIN + ".queue-pairs.sender.recv-cq"));
    }

    @Test
    void basicSharedReceiveQueueHasNoCompletionQueueOfItsOwn() {
        assertThatExceptionOfType(InvalidDeclarationException.class).isThrownBy(() -> declarations(Map.of(
                MAIN + ".protection-domains", "pd0",
                MAIN + ".completion-queues.cq0.entries", "16",
                MAIN + ".shared-receive-queues.srq0.protection-domain", "pd0",
                MAIN + ".shared-receive-queues.srq0.completion-queue", "cq0")))
                .satisfies(e -> assertThat(e.action())
                        .contains("set " + MAIN + ".shared-receive-queues.srq0.xrc-domain"));
    }

    @Test
    void xrcSharedReceiveQueueCannotFeedAQueuePair() {
        assertThatExceptionOfType(InvalidDeclarationException.class).isThrownBy(() -> declarations(Map.of(
                MAIN + ".protection-domains", "pd0",
                MAIN + ".xrc-domains.x.create", "true",
                MAIN + ".completion-queues.cq0.entries", "16",
                MAIN + ".shared-receive-queues.xsrq.protection-domain", "pd0",
                MAIN + ".shared-receive-queues.xsrq.xrc-domain", "x",
                MAIN + ".shared-receive-queues.xsrq.completion-queue", "cq0",
                MAIN + ".queue-pairs.qp0.protection-domain", "pd0",
                MAIN + ".queue-pairs.qp0.send-cq", "cq0",
                MAIN + ".queue-pairs.qp0.recv-cq", "cq0",
                MAIN + ".queue-pairs.qp0.srq", "xsrq")))
                .satisfies(e -> assertThat(e.problem()).contains("only a basic SRQ can feed a queue pair"));
    }

    @Test
    void deviceSelectedByAMalformedGuidIsRejected() {
        assertThatExceptionOfType(InvalidDeclarationException.class)
                .isThrownBy(() -> declarations(Map.of(MAIN + ".guid", "not-a-guid")))
                .satisfies(e -> assertThat(e.property()).isEqualTo(MAIN + ".guid"));
    }

    @Test
    void aBlankGuidIsRejectedRatherThanFailingAtBeanCreation() {
        assertThatExceptionOfType(InvalidDeclarationException.class)
                .isThrownBy(() -> declarations(Map.of(MAIN + ".guid", "")))
                .satisfies(e -> assertThat(e.property()).isEqualTo(MAIN + ".guid"));
    }

    @Test
    void anExclusiveXrcDomainMustBeCreated() {
        assertThatExceptionOfType(InvalidDeclarationException.class).isThrownBy(() -> declarations(Map.of(
                MAIN + ".xrc-domains.x0.exclusive", "true",
                MAIN + ".xrc-domains.x0.create", "false")))
                .satisfies(e -> assertThat(e.property()).isEqualTo(MAIN + ".xrc-domains.x0.exclusive"));
    }

    @Test
    void keysMustBeUniqueAcrossDevices() {
        assertThatExceptionOfType(DuplicateResourceKeyException.class).isThrownBy(() -> declarations(Map.of(
                MAIN + ".protection-domains", "pd0",
                "rdma.verbs.devices.other.protection-domains", "pd0")))
                .satisfies(e -> assertThat(e.properties()).containsExactlyInAnyOrder(MAIN + ".protection-domains[0]",
                        "rdma.verbs.devices.other.protection-domains[0]"));
    }

    @Test
    void aDeviceKeyIsAKeyToo() {
        assertThatExceptionOfType(DuplicateResourceKeyException.class).isThrownBy(() -> declarations(Map.of(
                MAIN + ".protection-domains", "main")));
    }

    private static CheckedDeclarations declarations(Map<String, String> properties) {
        VerbsProperties bound = new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate(VerbsProperties.PREFIX, VerbsProperties.class);
        return CheckedDeclarations.of(bound.devices());
    }
}
