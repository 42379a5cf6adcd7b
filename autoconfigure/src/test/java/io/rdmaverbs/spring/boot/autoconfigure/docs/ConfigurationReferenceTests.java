package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;
import io.rdmaverbs.spring.boot.resources.Declarations;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md stays in step with the code: every property the configuration processor
 * generated metadata for, and every per-entry key of the device tree (which the metadata describes
 * only as a map), is documented there.
 */
class ConfigurationReferenceTests {

    private static final Path REFERENCE = Path.of("..", "docs", "configuration.md");
    private static final Pattern NAME = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern DESCRIPTION = Pattern.compile("\"description\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    @Test
    void everyPropertyInTheGeneratedMetadataIsDocumented() throws IOException {
        String reference = Files.readString(REFERENCE, StandardCharsets.UTF_8);
        List<String> names = metadataPropertyNames();
        assertThat(names).as("the configuration processor's metadata").contains("rdma.verbs.provider",
                "rdma.verbs.teardown.policy", "rdma.verbs.devices");
        assertThat(names).allSatisfy(name -> assertThat(reference).as("docs/configuration.md").contains("`" + name + "`"));
    }

    /**
     * Spring Boot's metadata style: a description says what the property is ("Whether to...", "Number
     * of..."), never begins with an article, and is a sentence.
     */
    @Test
    void everyDescriptionInTheMetadataFollowsSpringBootsStyle() throws IOException {
        String json = generatedMetadata();
        Matcher m = DESCRIPTION.matcher(json);
        List<String> descriptions = new ArrayList<>();
        while (m.find()) {
            descriptions.add(m.group(1));
        }
        assertThat(descriptions).as("descriptions of properties and hint values").hasSizeGreaterThan(30)
                .allSatisfy(d -> assertThat(d).doesNotStartWith("The ").doesNotStartWith("A ").doesNotStartWith("An ")
                        .endsWith("."));
    }

    @Test
    void everyKeyOfADeclaredDeviceAndItsResourcesIsDocumented() throws IOException {
        String reference = Files.readString(REFERENCE, StandardCharsets.UTF_8);
        Set<String> keys = new LinkedHashSet<>();
        collectKeys(Declarations.Device.class, keys);
        assertThat(keys).as("keys of a device entry").contains("completion-queues", "entries", "comp-vector",
                "max-send-wr", "access");
        assertThat(keys).allSatisfy(key -> assertThat(reference).as("docs/configuration.md").contains("`" + key + "`"));
    }

    @Test
    void everyKeyOfADeclaredListenerAndPeerIsDocumented() throws IOException {
        String reference = Files.readString(REFERENCE, StandardCharsets.UTF_8);
        Set<String> keys = new LinkedHashSet<>();
        collectKeys(ConnectionDeclarations.Listener.class, keys);
        collectKeys(ConnectionDeclarations.Peer.class, keys);
        assertThat(keys).as("keys of a listener or peer entry").contains("device", "heartbeat-interval",
                "receive-buffers", "max-attempts", "wait-duration-in-open-state");
        // Nested keys are documented by their path in the entry: `reconnect.initial-backoff`, `connection.*`.
        assertThat(keys).allSatisfy(key -> assertThat(reference).as("docs/configuration.md")
                .containsAnyOf("`" + key + "`", "." + key + "`", "`" + key + "."));
    }

    private static String generatedMetadata() throws IOException {
        try (InputStream in = ConfigurationReferenceTests.class.getResourceAsStream(
                "/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated configuration metadata on the class path").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static List<String> metadataPropertyNames() throws IOException {
        List<String> names = new ArrayList<>();
        String json = generatedMetadata();
        // Properties come first; the groups and hints sections name types, not keys.
        int end = json.indexOf("\"hints\"");
        Matcher m = NAME.matcher(end < 0 ? json : json.substring(0, end));
        int properties = json.indexOf("\"properties\"");
        while (m.find()) {
            if (m.start() > properties) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    /** The kebab-case keys of a record and of the records its components (or their maps' values) are. */
    private static void collectKeys(Class<?> type, Set<String> keys) {
        for (RecordComponent c : type.getRecordComponents()) {
            keys.add(kebab(c.getName()));
            Class<?> nested = recordIn(c.getGenericType());
            if (nested != null) {
                collectKeys(nested, keys);
            }
        }
    }

    private static Class<?> recordIn(Type type) {
        if (type instanceof Class<?> c && c.isRecord()) {
            return c;
        }
        if (type instanceof ParameterizedType p && p.getRawType() == Map.class
                && p.getActualTypeArguments()[1] instanceof Class<?> v && v.isRecord()) {
            return v;
        }
        return null;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
