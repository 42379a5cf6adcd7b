package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/** Details reads as the LinkedHashMap it replaced: insertion order, equality, text. */
class DetailsTest {

    @Test
    void keepsTheOrderEntriesWerePutInAndAKeyPutAgainKeepsItsPlace() {
        Map<String, Object> details = new Details(2);
        Map<String, Object> linked = new LinkedHashMap<>();
        for (Map<String, Object> m : List.of(details, linked)) {
            m.put("qpNum", 17);
            m.put("type", "RC");
            m.put("state", "RTS");
            m.put("sendCq", null);
            m.put("type", "UD");
        }

        assertThat(details.keySet()).containsExactly("qpNum", "type", "state", "sendCq");
        assertThat(details).isEqualTo(linked).hasSameHashCodeAs(linked).hasToString(linked.toString());
        assertThat(details.get("type")).isEqualTo("UD");
        assertThat(details.containsKey("sendCq")).isTrue();
        assertThat(details.get("missing")).isNull();
        assertThat(details.containsKey("missing")).isFalse();
    }

    @Test
    void growsPastTheRoomItWasMadeWith() {
        Map<String, Object> details = new Details(0);
        for (int i = 0; i < 20; i++) {
            details.put("k" + i, i);
        }
        assertThat(details).hasSize(20);
        assertThat(details.values()).containsExactlyElementsOf(IntStream.range(0, 20).boxed().toList());
    }

    @Test
    void refusesRemovalsAndNullKeys() {
        Map<String, Object> details = new Details();
        details.put("entries", 16);
        assertThatThrownBy(() -> details.remove("entries")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> details.put(null, 1)).isInstanceOf(NullPointerException.class);
        assertThat(details).containsEntry("entries", 16);
    }
}
