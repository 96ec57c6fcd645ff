// The pickle reader (io/pickle_reader.h) on memory snapshots pickled by Python
// (tests/reference/make_memory_snapshots.py): every protocol from 2 to 5 and gzip give exactly the dict
// that Python wrote beside them as JSON; shared objects stay shared; every kind of damage is one
// PickleError naming the file, what and where.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/pickle_reader.h"
#include "test_support.h"

namespace awb::pickle {
namespace {

using test::snapshot_fixture;

// As Python's json.dump wrote it (tuples as lists, keys as str).
nlohmann::json to_json(const PickleValue& v, int depth = 0) {
    if (depth > PickleValue::kMaxWalkDepth) throw std::runtime_error("nested too deep");
    switch (v.kind) {
        case Kind::None: return nullptr;
        case Kind::Bool: return v.boolean;
        case Kind::Int: return v.integer;
        case Kind::Float: return v.real;
        case Kind::Str:
        case Kind::Bytes: return v.text;
        case Kind::List:
        case Kind::Tuple: {
            nlohmann::json a = nlohmann::json::array();
            for (const PickleValue* item : v.items) a.push_back(to_json(*item, depth + 1));
            return a;
        }
        case Kind::Dict: {
            nlohmann::json o = nlohmann::json::object();
            for (size_t i = 0; i + 1 < v.items.size(); i += 2) {
                const PickleValue& k = *v.items[i];
                o[k.kind == Kind::Str ? k.text : std::to_string(k.integer)] = to_json(*v.items[i + 1], depth + 1);
            }
            return o;
        }
    }
    return nullptr;
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

std::string message_of(std::string_view bytes) {
    try {
        read_pickle_bytes(bytes);
    } catch (const PickleError& e) {
        return e.what();
    }
    return "(read)";
}

TEST(PickleReader, EveryProtocolAndGzipGiveWhatPythonWrote) {
    for (const char* name : {"manual", "sdpa", "handmade"}) {
        const nlohmann::json want = read_json(snapshot_fixture(std::string(name) + ".json"));
        for (const char* form : {".p2.pickle", ".p4.pickle", ".p5.pickle", ".p4.pickle.gz"}) {
            SCOPED_TRACE(std::string(name) + form);
            const PickleDocument doc = read_pickle_file(snapshot_fixture(name + std::string(form)));
            ASSERT_NE(doc.root, nullptr);
            EXPECT_EQ(doc.protocol, form[2] - '0');
            EXPECT_EQ(to_json(*doc.root), want);
        }
    }
}

TEST(PickleReader, SharedObjectsStayShared) {
    // handmade.py builds one frames list for the segment, its first block and three trace entries: the
    // pickle memoizes it once and refers to it again.
    const PickleDocument doc = read_pickle_file(snapshot_fixture("handmade.p4.pickle"));
    const PickleValue* segment = doc.root->find("segments")->items.at(0);
    const PickleValue* frames = segment->find("frames");
    ASSERT_NE(frames, nullptr);
    EXPECT_EQ(frames->kind, Kind::List);
    EXPECT_EQ(frames->size(), 2u);
    EXPECT_EQ(segment->find("blocks")->items.at(0)->find("frames"), frames);
    EXPECT_EQ(doc.root->find("device_traces")->items.at(0)->items.at(0)->find("frames"), frames);
    EXPECT_EQ(doc.root->find("nothing"), nullptr);
    EXPECT_EQ(frames->find("frames"), nullptr);  // not a dict
}

TEST(PickleReader, IntegersFloatsAndTheirLimits) {
    // pickle.dumps([-1, -129, 2**63-1, -2**63, 255, 65535, 65536, -2**31], protocol=2)
    const std::string ints(
        "\x80\x02]q\x00(J\xff\xff\xff\xffJ\x7f\xff\xff\xff\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f"
        "\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80"
        "K\xffM\xff\xffJ\x00\x00\x01\x00J\x00\x00\x00\x80"
        "e.",
        53);
    const PickleDocument doc = read_pickle_bytes(ints);
    EXPECT_EQ(to_json(*doc.root), nlohmann::json({-1, -129, INT64_MAX, INT64_MIN, 255, 65535, 65536, -2147483648LL}));
    // pickle.dumps([1.5, -3, 2**70], protocol=4): the 2**70 is refused by name.
    const std::string wide(
        "\x80\x04\x95\x1e\x00\x00\x00\x00\x00\x00\x00]\x94(G?\xf8\x00\x00\x00\x00\x00\x00J\xfd\xff\xff\xff\x8a\t"
        "\x00\x00\x00\x00\x00\x00\x00\x00@e.",
        41);
    EXPECT_NE(message_of(wide).find("an integer wider than 64 bits (byte offset 28)"), std::string::npos)
        << message_of(wide);
    EXPECT_EQ(to_json(*read_pickle_bytes(wide.substr(0, 28) + "e.").root), nlohmann::json({1.5, -3}));
}

TEST(PickleReader, DamageIsOneMessageWithWhatAndWhere) {
    // Truncated: the manual snapshot cut in half.
    std::ifstream in(snapshot_fixture("manual.p4.pickle"), std::ios::binary);
    std::stringstream whole;
    whole << in.rdbuf();
    const std::string half = whole.str().substr(0, whole.str().size() / 2);
    EXPECT_NE(message_of(half).find("the pickle ends inside an opcode (a truncated file?)"), std::string::npos)
        << message_of(half);
    EXPECT_NE(message_of("").find("the file is empty"), std::string::npos);
    EXPECT_NE(message_of("{\"segments\": []}").find("this is JSON"), std::string::npos);
    // pickle.dumps({'a': 1}, protocol=0)
    EXPECT_NE(message_of("(dp0\nVa\np1\nI1\ns.").find("protocols 0 and 1 are not read"), std::string::npos);
    EXPECT_NE(message_of(std::string("\x80\x06N.", 4)).find("pickle protocol 6: this reader takes 2 to 5"),
              std::string::npos);
    // pickle.dumps(collections.OrderedDict(), protocol=2)
    const std::string object(
        "\x80\x02"
        "ccollections\nOrderedDict\nq\x00)Rq\x01.",
        34);
    EXPECT_NE(message_of(object).find("an object of a Python class (collections.OrderedDict)"), std::string::npos)
        << message_of(object);
    EXPECT_NE(message_of(std::string("\x80\x02h\x05.", 5)).find("memo slot 5 was never set (byte offset 2)"),
              std::string::npos);
    EXPECT_NE(message_of(std::string("\x80\x02"
                                     "a.",
                                     4))
                  .find("takes a value from an empty stack"),
              std::string::npos);
    EXPECT_NE(message_of(std::string("\x80\x02K\x01K\x02"
                                     "a.",
                                     8))
                  .find("APPEND onto an int, not a list"),
              std::string::npos);
    EXPECT_NE(message_of(std::string("\x80\x02}(K\x01u.", 8)).find("a key without its value"), std::string::npos);
    EXPECT_NE(message_of(std::string("\x80\x02\xff.", 4)).find("unknown opcode 0xff"), std::string::npos);
    EXPECT_NE(message_of(std::string("\x80\x02"
                                     "e.",
                                     4))
                  .find("needs a MARK and there is none"),
              std::string::npos);
    // Limits: open MARKs.
    PickleLimits limits;
    limits.max_marks = 10;
    EXPECT_THROW(read_pickle_bytes(std::string("\x80\x02") + std::string(11, '('), limits), PickleError);
}

TEST(PickleReader, AFileNamesItselfAndGzipDamageIsNamed) {
    try {
        read_pickle_file(snapshot_fixture("manual.json"));
        FAIL() << "read JSON as a pickle";
    } catch (const PickleError& e) {
        EXPECT_NE(std::string(e.what()).find("manual.json: this is JSON"), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_pickle_file(snapshot_fixture("no_such.pickle")), std::runtime_error);
}

TEST(PickleReader, StrIsValidUtf8) {
    // pickle.dumps('a\ud800b', protocol=4): Python writes the lone surrogate as ED A0 80 (surrogatepass);
    // each of its bytes becomes U+FFFD, as bytes.decode('utf-8', 'replace') gives. Valid text is kept.
    const std::string lone(
        "\x80\x04\x95\x09\x00\x00\x00\x00\x00\x00\x00\x8c\x05"
        "a\xed\xa0\x80"
        "b\x94.",
        20);
    EXPECT_EQ(read_pickle_bytes(lone).root->text,
              "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
              "b");
    const std::string fine(
        "\x80\x04\x8c\x06"
        "\xc3\xa9\xe2\x82\xac!.",
        11);  // "é€!"
    EXPECT_EQ(read_pickle_bytes(fine).root->text, "\xc3\xa9\xe2\x82\xac!");
}

TEST(PickleReader, ARepeatedKeyGivesItsLastValueAsPythonDoes) {
    // } BINPUT 0, 'a' BINPUT 1, 1, SETITEM, BINGET 1, 2, SETITEM: {'a': 1} then its 'a' set to 2.
    const PickleDocument doc =
        read_pickle_bytes(std::string("\x80\x02}q\x00X\x01\x00\x00\x00"
                                      "aq\x01K\x01sh\x01K\x02s.",
                                      22));
    ASSERT_NE(doc.root->find("a"), nullptr);
    EXPECT_EQ(doc.root->find("a")->integer, 2);
}

TEST(PickleReader, ASelfContainingListIsReadWithoutLooping) {
    // ] BINPUT 0, BINGET 0, APPEND: a list that holds itself (only a damaged or hostile file does this).
    const PickleDocument doc =
        read_pickle_bytes(std::string("\x80\x02]q\x00h\x00"
                                      "a.",
                                      9));
    ASSERT_EQ(doc.root->items.size(), 1u);
    EXPECT_EQ(doc.root->items[0], doc.root);
    EXPECT_THROW(to_json(*doc.root), std::runtime_error);  // walkers bound their depth
}

}  // namespace
}  // namespace awb::pickle
