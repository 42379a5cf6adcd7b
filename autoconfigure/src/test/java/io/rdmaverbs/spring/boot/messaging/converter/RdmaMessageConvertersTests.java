package io.rdmaverbs.spring.boot.messaging.converter;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.rdmaverbs.verbs.connection.Message;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ParameterizedTypeReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The converters pick by payload type when writing and by content type and target type when reading. */
class RdmaMessageConvertersTests {

    record Point(int x, int y) {
    }

    private final RdmaMessageConverters converters = new RdmaMessageConverters(List.of(new BytesMessageConverter(),
            new StringMessageConverter(), new JacksonJsonMessageConverter(JsonMapper.builder().build())));

    @Test
    void eachPayloadIsWrittenWithTheContentTypeOfItsConverter() {
        assertThat(converters.toMessage(new byte[] { 1 }).header("content-type")).isEqualTo("application/octet-stream");
        assertThat(converters.toMessage(ByteBuffer.allocate(3)).length()).isEqualTo(3);
        assertThat(converters.toMessage(MemorySegment.ofArray(new byte[5])).length()).isEqualTo(5);
        assertThat(converters.toMessage("é").header("content-type")).isEqualTo("text/plain;charset=UTF-8");
        assertThat(converters.toMessage("é").toByteArray()).isEqualTo("é".getBytes(StandardCharsets.UTF_8));
        Message json = converters.toMessage(new Point(1, 2));
        assertThat(json.header("content-type")).isEqualTo("application/json");
        assertThat(json.asString()).isEqualTo("{\"x\":1,\"y\":2}");
        Message given = Message.of("as is");
        assertThat(converters.toMessage(given)).isSameAs(given);
    }

    @Test
    void aMessageIsReadByItsContentTypeIntoTheTypeAskedForGenericsIncluded() {
        Message points = Message.of("[{\"x\":1,\"y\":2},{\"x\":3,\"y\":4}]")
                .withHeader("content-type", "application/vnd.points+json");
        Object read = converters.fromMessage(points, new ParameterizedTypeReference<List<Point>>() { }.getType());
        assertThat(read).isEqualTo(List.of(new Point(1, 2), new Point(3, 4)));
        assertThat(converters.fromMessage(points, String.class)).startsWith("[{");
        assertThat(converters.fromMessage(points, byte[].class)).hasSize(points.toByteArray().length);
        assertThat(converters.fromMessage(Message.of("{\"x\":5,\"y\":6}"), Point.class)).isEqualTo(new Point(5, 6));
        Message latin1 = Message.of("\u00e9".getBytes(StandardCharsets.ISO_8859_1))
                .withHeader("content-type", "text/plain;charset=ISO-8859-1");
        assertThat(converters.fromMessage(latin1, String.class)).isEqualTo("\u00e9");
    }

    @Test
    void aContentTypeNoConverterReadsAsTheTypeOrAPayloadThatDoesNotParseIsAConversionException() {
        Message text = Message.of("hello").withHeader("content-type", "text/plain");
        assertThatThrownBy(() -> converters.fromMessage(text, Point.class))
                .isInstanceOf(RdmaMessageConversionException.class)
                .hasMessageContaining("no converter reads a message of content type 'text/plain' as a")
                .hasMessageContaining("JacksonJsonMessageConverter");
        assertThatThrownBy(() -> converters.fromMessage(Message.of("{nope").withHeader("content-type",
                "application/json"), Point.class)).isInstanceOf(RdmaMessageConversionException.class)
                .hasMessageContaining("a JSON payload of 5 bytes is not a");
    }

    @Test
    void withoutJacksonAnObjectHasNoConverterAndTheMessageSaysWhatToAdd() {
        assertThatThrownBy(() -> RdmaMessageConverters.defaults().toMessage(Map.of("a", 1)))
                .isInstanceOf(RdmaMessageConversionException.class)
                .hasMessageContaining("no converter writes a").hasMessageContaining("tools.jackson.core:jackson-databind");
    }
}
