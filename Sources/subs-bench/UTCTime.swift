// Calendar arithmetic on Unix seconds for the generator: civil dates (Howard Hinnant's
// algorithms), month addition clamped to the month's last day like SPEC section 1, ISO text.

enum UTCTime {
    static let day: Int64 = 86_400

    /// Unix seconds of a UTC date-time.
    static func seconds(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        daysFromCivil(year, month, day) * UTCTime.day + Int64(hour * 3600 + minute * 60 + second)
    }

    /// `t` plus `months` calendar months, the day clamped to the target month's length.
    static func adding(months: Int, to t: Int64) -> Int64 {
        let days = floorDiv(t, day)
        let timeOfDay = t - days * day
        let (y, m, d) = civil(fromDays: days)
        let total = y * 12 + (m - 1) + months
        let year = floorDiv(Int64(total), 12)
        let month = total - Int(year) * 12 + 1
        let clamped = min(d, daysIn(month: month, year: Int(year)))
        return daysFromCivil(Int(year), month, clamped) * day + timeOfDay
    }

    /// Writes `YYYY-MM-DDTHH:MM:SSZ` (20 bytes) at `out`.
    static func writeISO(_ t: Int64, to out: UnsafeMutablePointer<UInt8>) {
        let days = floorDiv(t, day)
        var rest = Int(t - days * day)
        let (y, m, d) = civil(fromDays: days)
        let hour = rest / 3600
        rest -= hour * 3600
        let minute = rest / 60
        let second = rest - minute * 60
        func put(_ value: Int, _ width: Int, _ at: Int) {
            var v = value
            for i in stride(from: at + width - 1, through: at, by: -1) {
                out[i] = UInt8(48 + v % 10)
                v /= 10
            }
        }
        put(y, 4, 0); out[4] = 45
        put(m, 2, 5); out[7] = 45
        put(d, 2, 8); out[10] = 84
        put(hour, 2, 11); out[13] = 58
        put(minute, 2, 14); out[16] = 58
        put(second, 2, 17); out[19] = 90
    }

    static func iso(_ t: Int64) -> String {
        var bytes = [UInt8](repeating: 0, count: 20)
        bytes.withUnsafeMutableBufferPointer { writeISO(t, to: $0.baseAddress!) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        let y = Int(yoe + era * 400) + (m <= 2 ? 1 : 0)
        return (y, m, d)
    }
}
