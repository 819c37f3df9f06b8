module hqr
end module hqr
